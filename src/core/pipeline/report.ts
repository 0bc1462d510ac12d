import type { RemovalCode } from './diagnostics.js';
import type { OutputFormat } from '../output/formats.js';

export interface RemovedLine {
  /** The list the line was read from (a configured source or an included list); null for generated lines. */
  source: string | null;
  /** 1-based line number in that list, or null. */
  line: number | null;
  text: string;
  /** Where it was removed: a source's index, or 'global'. */
  scope: number | 'global';
  transformation: string;
  code: RemovalCode;
  reason: string;
}

export interface TransformationStat {
  scope: number | 'global';
  name: string;
  inputCount: number;
  outputCount: number;
  durationMs: number;
}

export interface SourceStat {
  source: string;
  lineCount: number;
  durationMs: number;
  error?: string;
  /** `onSourceError: stale`: the source failed (`error`) and its cached copy was compiled instead. */
  stale?: { storedAt: string; ageSeconds: number };
}

/** A rule of the compiled list (before an output format wrote it), with where it came from. */
export interface KeptRule {
  source: string | null;
  line: number | null;
  text: string;
}

/**
 * What `--report` writes: counts per transformation, why each removed line went, and where each
 * rule that stayed came from, which is all `explain` needs.
 */
export interface CompileReport {
  /** The output format the list was written in. */
  format: OutputFormat;
  sources: SourceStat[];
  transformations: TransformationStat[];
  removed: RemovedLine[];
  kept: KeptRule[];
}
