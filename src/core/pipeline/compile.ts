import type { Configuration, SourceConfig } from '../config/schema.js';
import type { SourceReader } from '../load/source-reader.js';
import type { Lines } from '../transforms/lines.js';
import type { Transformation, TransformContext } from '../transforms/types.js';
import type { CompileEvent, EventSink, Scope } from './events.js';
import type { Diagnostic, RemovalCode } from './diagnostics.js';
import type { CompileReport, RemovedLine } from './report.js';
import { concatLines, keepWhere, syntheticLines, unpackOrigin } from '../transforms/lines.js';
import {
  concatPacked,
  countPackedRules,
  isPacked,
  joinPacked,
  keepWherePacked,
  lineCount,
  lineText,
  packStrings,
  unpackLines,
  type ListData,
  type PackedLines,
} from '../transforms/packed.js';
import { planTransformations } from '../transforms/registry.js';
import { joinInKernel } from '../transforms/kernel.js';
import { loadList, loadListPacked, type LoadContext } from '../load/load-list.js';
import { PatternSet } from './patterns.js';
import { listHeader, sourceHeader } from '../output/header.js';
import { formatLines, type OutputFormat } from '../output/format.js';
import { isComment } from '../transforms/rule-text.js';
import { type ListRole, SourceError } from '../errors/source-error.js';
import { AbortedError } from '../errors/aborted-error.js';
import { FlcError } from '../errors/flc-error.js';

export interface CompileOptions {
  reader: SourceReader;
  /** Shown in the header as `! Compiled by <compiler>`. */
  compiler: string;
  now?: () => Date;
  onEvent?: EventSink;
  signal?: AbortSignal;
  /** Record every removed line with its provenance and reason. */
  report?: boolean;
  /**
   * Receives every removed line with its provenance and reason as it is removed (sources in
   * configuration order, then the whole list), instead of `report.removed` holding them all.
   */
  onRemoved?: (line: RemovedLine) => void;
  format?: OutputFormat;
  /**
   * Work on lists without directives as bytes where the transformations allow
   * (transforms/packed.ts); on by default. The output is the same either way.
   */
  packed?: boolean;
}

export interface CompileResult {
  /** The list's lines (made on first use when the list was compiled packed). */
  readonly lines: string[];
  readonly lineCount: number;
  /** The list as written out: its lines joined with LF, UTF-8. */
  bytes(): Uint8Array;
  /** Lines that are neither comments nor blank. */
  ruleCount: number;
  compiledAt: Date;
  diagnostics: Diagnostic[];
  report?: CompileReport;
}

interface Run {
  options: CompileOptions;
  signal: AbortSignal;
  load: LoadContext;
  emit: EventSink;
  diagnostics: Diagnostic[];
  report?: CompileReport;
  /** `onSourceError: skip`: a failed source is left out with a warning. */
  skip: boolean;
  /** Where removed lines go: the report's list, or the caller's `onRemoved`; null when nobody asks. */
  removed: ((line: RemovedLine) => void) | null;
  /** Exclusion and inclusion sets compiled so far, by what they were made from. */
  patternSets: Map<string, Promise<PatternSet | null>>;
}

function checkAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new AbortedError(signal.reason);
}

function removalRecorder(run: Run, scope: Scope, transformation: string): TransformContext {
  const sink = run.removed;
  if (!sink) return { reporting: false, removed: () => undefined };
  const files = run.load.files;
  const scopeId = scope.kind === 'global' ? 'global' : scope.index;
  return {
    reporting: true,
    removed(text: string, origin: number | undefined, code: RemovalCode, reason: string) {
      const at = origin === undefined ? null : unpackOrigin(origin);
      const entry: RemovedLine = {
        source: at ? files[at.file] : null,
        line: at ? at.line : null,
        text,
        scope: scopeId,
        transformation,
        code,
        reason,
      };
      sink(entry);
    },
  };
}

/** Runs one named step, emitting its start/complete events and recording its counts. */
function step<T extends ListData>(
  run: Run,
  scope: Scope,
  name: string,
  lines: ListData,
  fn: (ctx: TransformContext) => T,
): T {
  checkAborted(run.signal);
  const inputCount = lineCount(lines);
  run.emit({ type: 'transformation:start', scope, name, inputCount });
  const started = performance.now();
  const out = fn(removalRecorder(run, scope, name));
  const durationMs = performance.now() - started;
  const outputCount = lineCount(out);
  run.emit({ type: 'transformation:complete', scope, name, inputCount, outputCount, durationMs });
  run.report?.transformations.push({
    scope: scope.kind === 'global' ? 'global' : scope.index,
    name,
    inputCount,
    outputCount,
    durationMs,
  });
  return out;
}

function filterStep(run: Run, scope: Scope, lines: ListData, set: PatternSet | null, exclude: boolean): ListData {
  if (!set || set.size === 0) return lines;
  return step(run, scope, exclude ? 'Exclusions' : 'Inclusions', lines, (ctx) => {
    const count = lineCount(lines);
    const text = isPacked(lines) ? (i: number) => lineText(lines, i) : (i: number) => lines.text[i];
    const keep = new Uint8Array(count);
    for (let i = 0; i < count; i += 1) {
      const line = text(i);
      const hit = set.match(line);
      if ((hit !== null) !== exclude) keep[i] = 1;
      else if (ctx.reporting) {
        const [code, reason]: [RemovalCode, string] = exclude
          ? ['excluded', `matches exclusion ${hit}`]
          : ['not-included', 'matches no inclusion'];
        ctx.removed(line, lines.from?.[i], code, reason);
      }
    }
    return isPacked(lines) ? keepWherePacked(lines, keep) : keepWhere(lines, keep);
  });
}

type Filterable = Pick<SourceConfig, 'exclusions' | 'exclusions_sources' | 'inclusions' | 'inclusions_sources'>;

/**
 * The compiled set of these patterns and pattern files. Configurations give many sources the same
 * exclusion files: each set is read and compiled once per compile.
 */
function patternSet(
  run: Run,
  role: 'exclusions file' | 'inclusions file',
  patterns?: string[],
  sources?: string[],
): Promise<PatternSet | null> {
  if (!patterns?.length && !sources?.length) return Promise.resolve(null);
  const key = JSON.stringify([role, patterns ?? [], sources ?? []]);
  let set = run.patternSets.get(key);
  if (!set) {
    set = readPatternSet(run, role, patterns, sources);
    run.patternSets.set(key, set);
  }
  return set;
}

async function readPatternSet(
  run: Run,
  role: 'exclusions file' | 'inclusions file',
  patterns?: string[],
  sources?: string[],
): Promise<PatternSet> {
  const loaded = await Promise.all(
    (sources ?? []).map(async (source) => {
      try {
        const lines = await loadList(run.options.reader.resolve(source, null), { ...run.load, tracked: false });
        return lines.text.filter((l) => l.trim().length > 0 && !isComment(l));
      } catch (e) {
        throw asSourceError(source, e, run.signal, role);
      }
    }),
  );
  return new PatternSet([...(patterns ?? []), ...loaded.flat()]);
}

function asSourceError(source: string, e: unknown, signal: AbortSignal, role: ListRole = 'source'): Error {
  if (signal.aborted) return new AbortedError(signal.reason);
  if (e instanceof FlcError) return e;
  return new SourceError(source, (e as Error)?.message ?? String(e), { cause: e, role });
}

function asLines(list: ListData): Lines {
  return isPacked(list) ? unpackLines(list) : list;
}

async function applyScope(run: Run, scope: Scope, lines: ListData, cfg: Filterable & { transformations?: string[] }) {
  const [exclusions, inclusions] = await Promise.all([
    patternSet(run, 'exclusions file', cfg.exclusions, cfg.exclusions_sources),
    patternSet(run, 'inclusions file', cfg.inclusions, cfg.inclusions_sources),
  ]);
  let out = filterStep(run, scope, lines, exclusions, true);
  out = filterStep(run, scope, out, inclusions, false);
  const plan: Transformation[] = planTransformations((cfg.transformations ?? []) as Transformation['name'][]);
  for (const t of plan) {
    const input: ListData = out;
    if (isPacked(input) && !t.applyPacked) {
      // The rest of this scope runs on strings: slower, and -v says so.
      const where = scope.kind === 'global' ? 'list' : `source ${scope.index + 1}`;
      const message = `${where}: ${t.name} works on text, so the steps from it on run on strings`;
      run.emit({ type: 'log', level: 'debug', message });
    }
    out = step(
      run,
      scope,
      t.name,
      input,
      (ctx): ListData => (isPacked(input) && t.applyPacked ? t.applyPacked(input, ctx) : t.apply(asLines(input), ctx)),
    );
  }
  return out;
}

/**
 * Loads source `index` (downloads run concurrently), then waits for `turn` (the previous source's
 * transformations) before transforming it, so that steps and removed lines come out in
 * configuration order, as they are streamed, and two runs over the same input report alike.
 */
async function compileSource(
  run: Run,
  source: SourceConfig,
  index: number,
  total: number,
  turn: Promise<unknown>,
): Promise<ListData | null> {
  const scope: Scope = { kind: 'source', index, source: source.source };
  run.emit({ type: 'source:start', index, source: source.source });
  const started = performance.now();
  let lines: ListData;
  try {
    const location = run.options.reader.resolve(source.source, null);
    lines =
      run.options.packed === false ? await loadList(location, run.load) : await loadListPacked(location, run.load);
  } catch (e) {
    const error = asSourceError(source.source, e, run.signal);
    if (error instanceof AbortedError || run.options.signal?.aborted) throw error;
    const skipped = run.skip;
    run.emit({ type: 'source:error', index, source: source.source, error: error.message, skipped });
    if (run.report)
      run.report.sources[index] = {
        source: source.source,
        lineCount: 0,
        durationMs: performance.now() - started,
        error: error.message,
      };
    if (!skipped) throw error;
    const diagnostic: Diagnostic = {
      code: 'source-skipped',
      severity: 'warning',
      source: source.source,
      message: error.message,
    };
    run.diagnostics.push(diagnostic);
    run.emit({ type: 'diagnostic', diagnostic });
    return null;
  }
  const durationMs = performance.now() - started;
  await turn;
  run.emit({ type: 'source:complete', index, source: source.source, lineCount: lineCount(lines), durationMs });
  if (run.report) run.report.sources[index] = { source: source.source, lineCount: lineCount(lines), durationMs };
  if (run.options.packed !== false && !isPacked(lines)) {
    const message = `source ${index + 1}: its text (or a list it includes) is not well-formed Unicode`;
    run.emit({ type: 'log', level: 'debug', message: `${message}, so it compiles on strings` });
  }
  const out = await applyScope(run, scope, lines, source);
  run.emit({ type: 'progress', phase: 'load', completed: index + 1, total });
  return out;
}

function countRules(lines: string[]): number {
  let n = 0;
  for (const l of lines) if (l.trim().length > 0 && !isComment(l)) n += 1;
  return n;
}

/** Lines no source supplied (headers), in the form the list around them has. */
function synthetic(text: string[], tracked: boolean, packed: boolean): ListData {
  return packed
    ? packStrings(text, tracked ? syntheticLines(text, true).from : undefined)
    : syntheticLines(text, tracked);
}

/** Joins lists: packed when every part is, else as strings. */
function joinLists(parts: ListData[], tracked: boolean): ListData {
  if (parts.every(isPacked)) return concatPacked(parts as PackedLines[], tracked);
  return concatLines(parts.map(asLines), tracked);
}

const encoder = new TextEncoder();

type Outcome = Pick<CompileResult, 'compiledAt' | 'diagnostics' | 'report'>;

/** The result over the finished list; a packed list becomes strings only if someone asks. */
function resultOf(list: ListData, outcome: Outcome): CompileResult {
  if (!isPacked(list)) {
    const text = list.text;
    return {
      ...outcome,
      lines: text,
      lineCount: text.length,
      bytes: () => encoder.encode(text.join('\n')),
      ruleCount: countRules(text),
    };
  }
  let lines: string[] | undefined;
  return {
    ...outcome,
    get lines() {
      lines ??= unpackLines(list).text;
      return lines;
    },
    lineCount: lineCount(list),
    bytes: () => joinInKernel(list) ?? joinPacked(list),
    ruleCount: countPackedRules(list),
  };
}

/**
 * Compiles a filter list: every source is loaded, filtered and transformed, wrapped
 * in its source block, then the whole list is filtered and transformed and given its
 * header. Output equals @adguard/hostlist-compiler's apart from documented divergences.
 */
export async function compile(config: Configuration, options: CompileOptions): Promise<CompileResult> {
  const controller = new AbortController();
  const outer = options.signal;
  const forward = () => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  outer?.addEventListener('abort', forward, { once: true });
  const tracked = options.report === true || options.onRemoved !== undefined;
  const run: Run = {
    options,
    signal: controller.signal,
    load: { reader: options.reader, signal: controller.signal, tracked, files: [] },
    emit: options.onEvent ?? (() => undefined),
    diagnostics: [],
    report: options.report === true ? { sources: [], transformations: [], removed: [] } : undefined,
    skip: config.onSourceError === 'skip',
    removed: null,
    patternSets: new Map(),
  };
  const report = run.report;
  run.removed = options.onRemoved ?? (report ? (line) => report.removed.push(line) : null);
  try {
    checkAborted(run.signal);
    const total = config.sources.length;
    const turns: Promise<ListData | null>[] = [];
    config.sources.forEach((s, i) => {
      const previous = turns[i - 1] ?? Promise.resolve();
      // The next source's turn comes when this one is done, whether it failed or not.
      turns.push(
        compileSource(run, s, i, total, previous).catch((e: unknown) => {
          controller.abort(e);
          throw e;
        }),
      );
    });
    const perSource = await Promise.all(turns);
    const parts: ListData[] = [];
    config.sources.forEach((source, i) => {
      const lines = perSource[i];
      if (!lines) return;
      parts.push(synthetic(sourceHeader(source), tracked, isPacked(lines)), lines);
    });
    let list = await applyScope(run, { kind: 'global' }, joinLists(parts, tracked), config);
    const compiledAt = (options.now ?? (() => new Date()))();
    list = joinLists(
      [synthetic(listHeader(config, compiledAt, options.compiler), tracked, isPacked(list)), list],
      tracked,
    );
    const format = options.format ?? 'adblock';
    if (format !== 'adblock') {
      const formatted = formatLines(
        asLines(list),
        format,
        removalRecorder(run, { kind: 'global' }, `format:${format}`),
      );
      list = formatted.lines;
      if (formatted.dropped > 0) {
        const diagnostic: Diagnostic = {
          code: 'unsupported-in-format',
          severity: 'warning',
          message: `${formatted.dropped} rule(s) cannot be expressed in ${format} format and were left out`,
        };
        run.diagnostics.push(diagnostic);
        run.emit({ type: 'diagnostic', diagnostic });
      }
    }
    run.emit({ type: 'progress', phase: 'output', completed: 1, total: 1 });
    return resultOf(list, { compiledAt, diagnostics: run.diagnostics, report: run.report });
  } finally {
    outer?.removeEventListener('abort', forward);
  }
}

export type { CompileEvent };
