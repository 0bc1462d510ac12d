import type { RemovalCode } from './diagnostics.js';

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
}

/** What `--report` writes: counts per transformation and why each removed line went. */
export interface CompileReport {
  sources: SourceStat[];
  transformations: TransformationStat[];
  removed: RemovedLine[];
}
