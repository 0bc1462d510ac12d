import type { Configuration, SourceConfig } from '../config/schema.js';
import type { SourceReader } from '../load/source-reader.js';
import type { TransformContext } from '../transforms/types.js';
import type { EventSink, Scope } from './events.js';
import type { Diagnostic } from './diagnostics.js';
import type { CompileReport, KeptRule, RemovedLine, SourceStat } from './report.js';
import type { RemovalCode } from './diagnostics.js';
import { unpackOrigin } from '../transforms/lines.js';
import { planTransformations } from '../transforms/registry.js';
import { loadList, type LoadContext } from '../load/load-list.js';
import { type Engine, stringEngine } from '../engine/engine.js';
import { packedEngine } from '../engine/packed-engine.js';
import { kernelModule } from '../engine/kernel.js';
import { PatternSet } from './patterns.js';
import { listHeader, sourceHeader } from '../output/header.js';
import { writeFormat } from '../output/format.js';
import { DEFAULT_HOSTS_ADDRESSES, type OutputFormat } from '../output/formats.js';
import { isComment } from '../rules/rule-text.js';
import { dnsRule } from '../rules/dns-rule.js';
import { formatAge } from '../publish/duration.js';
import { Allowlist, allowEntry, allowFileNames, type AllowVerdict } from './allowlist.js';
import type { Lines } from '../transforms/lines.js';
import { type ListRole, SourceError, AbortedError, FlcError } from '../errors/index.js';

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
  /**
   * Receives every rule of the compiled list with its provenance, in list order, once the list
   * is written (after every removed line), instead of `report.kept` holding them all.
   */
  onKept?: (rule: KeptRule) => void;
  /** The output format; the configuration's `format`, else `adblock`, when not given. */
  format?: OutputFormat;
  /** The addresses of the `hosts` format's lines (`0.0.0.0` when not given). */
  hostsAddresses?: readonly string[];
  /**
   * The engine: packed lists of bytes where the transformations allow (engine/packed-engine.ts),
   * the default, or strings (false). The output is the same either way.
   */
  packed?: boolean;
  /** `onSourceError: stale`: the oldest cached copy a failed source may be compiled from. */
  maxStaleMs?: number;
  /**
   * The dead-domain check (opt-in): of the names asked, those that do not exist (NXDOMAIN). The
   * rules about those names alone are removed with the code `dead-domain`, before the header.
   */
  deadDomains?: (names: string[]) => Promise<ReadonlySet<string>>;
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

/** A list as the engine in use holds it; the pipeline passes it to the engine only. */
type List = object;

interface Run {
  engine: Engine<List>;
  signal: AbortSignal;
  load: LoadContext;
  emit: EventSink;
  diagnostics: Diagnostic[];
  report?: CompileReport;
  /** `onSourceError: skip`: a failed source is left out with a warning. */
  skip: boolean;
  /** `onSourceError: stale`: a failed source is compiled from its last good copy, if it has one. */
  stale: boolean;
  maxStaleMs?: number;
  /** Where removed lines go: the report's list, or the caller's `onRemoved`; null when nobody asks. */
  removed: ((line: RemovedLine) => void) | null;
  /** Exclusion and inclusion sets compiled so far, by what they were made from. */
  patternSets: Map<string, Promise<PatternSet>>;
  /** Allowlists read so far, by what they were made from. */
  allowlists: Map<string, Promise<Allowlist>>;
}

function checkAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new AbortedError(signal.reason);
}

const scopeKey = (scope: Scope) => (scope.kind === 'global' ? 'global' : scope.index);

/** Where a compile leaves the packed engine for strings: engine internals, so a debug note (-v prints it). */
function engineNote(run: Pick<Run, 'emit'>, message: string): void {
  run.emit({ type: 'log', level: 'debug', message });
}

function warn(run: Run, diagnostic: Diagnostic): void {
  run.diagnostics.push(diagnostic);
  run.emit({ type: 'diagnostic', diagnostic });
}

function removalRecorder(run: Run, scope: Scope, transformation: string): TransformContext {
  const sink = run.removed;
  if (!sink) return { reporting: false, removed: () => undefined };
  return {
    reporting: true,
    removed(text, origin, code, reason) {
      const at = origin === undefined ? null : unpackOrigin(origin);
      const source = at ? run.load.files[at.file] : null;
      sink({ source, line: at?.line ?? null, text, scope: scopeKey(scope), transformation, code, reason });
    },
  };
}

/** Runs one named step, emitting its start/complete events and recording its counts. */
function step(run: Run, scope: Scope, name: string, lines: List, fn: (ctx: TransformContext) => List): List {
  return stepOver(run, scope, name, [lines], (ctx) => [fn(ctx)])[0];
}

/** `step` over the parts of a list (the filters' input), its counts the whole list's. */
function stepOver(run: Run, scope: Scope, name: string, parts: List[], fn: (ctx: TransformContext) => List[]): List[] {
  checkAborted(run.signal);
  const count = (lists: List[]) => lists.reduce((n: number, l) => n + run.engine.count(l), 0);
  const inputCount = count(parts);
  run.emit({ type: 'transformation:start', scope, name, inputCount });
  const started = performance.now();
  const out = fn(removalRecorder(run, scope, name));
  const durationMs = performance.now() - started;
  const stat = { name, inputCount, outputCount: count(out), durationMs };
  run.emit({ type: 'transformation:complete', scope, ...stat });
  run.report?.transformations.push({ scope: scopeKey(scope), ...stat });
  return out;
}

/**
 * Exclusions or inclusions over the parts a list is joined from, each part read alone: the list is
 * joined from the lines they keep (`applyScope`), not copied whole before most are dropped.
 */
function filterStep(run: Run, scope: Scope, parts: List[], set: PatternSet, exclude: boolean): List[] {
  if (set.size === 0) return parts;
  const name = exclude ? 'Exclusions' : 'Inclusions';
  return stepOver(run, scope, name, parts, (ctx) => parts.map((lines) => filterLines(run, lines, set, exclude, ctx)));
}

function filterLines(run: Run, lines: List, set: PatternSet, exclude: boolean, ctx: TransformContext): List {
  const { engine } = run;
  const keep = new Uint8Array(engine.count(lines));
  // A first pattern of `*` only: every line is included, unread (an exclusion reports each).
  if (set.everyLine !== null && !exclude) return engine.keep(lines, keep.fill(1));
  // No pattern to name: whether one matches is enough.
  if (!ctx.reporting) return engine.keep(lines, engine.select(lines, set, exclude));
  const text = engine.reader(lines);
  for (let i = 0; i < keep.length; i += 1) {
    const line = text(i);
    const hit = set.match(line);
    if ((hit !== null) !== exclude) keep[i] = 1;
    else if (exclude) ctx.removed(line, engine.origin(lines, i), 'excluded', `matches exclusion ${hit}`);
    else ctx.removed(line, engine.origin(lines, i), 'not-included', 'matches no inclusion');
  }
  return engine.keep(lines, keep);
}

/**
 * The compiled set of these patterns and pattern files. Configurations give many sources the same
 * exclusion files: each set is read and compiled once per compile.
 */
function patternSet(
  run: Run,
  role: 'exclusions file' | 'inclusions file',
  patterns: string[] = [],
  sources: string[] = [],
): Promise<PatternSet> {
  const key = JSON.stringify([role, patterns, sources]);
  let set = run.patternSets.get(key);
  if (!set) {
    const read = sources.map(async (source) => {
      try {
        const lines = await loadList(run.load.reader.resolve(source, null), { ...run.load, tracked: false });
        return lines.text.filter((l) => l.trim().length > 0 && !isComment(l));
      } catch (e) {
        throw asSourceError(source, e, run.signal, role);
      }
    });
    set = Promise.all(read).then((loaded) => new PatternSet([...patterns, ...loaded.flat()]));
    run.patternSets.set(key, set);
  }
  return set;
}

function asSourceError(source: string, e: unknown, signal: AbortSignal, role: ListRole = 'source'): Error {
  if (signal.aborted) return new AbortedError(signal.reason);
  if (e instanceof FlcError) return e;
  return new SourceError(source, (e as Error)?.message ?? String(e), { cause: e, role });
}

/** The allowlist of these entries and files, read once per compile like the pattern sets. */
function allowlist(run: Run, entries: string[] = [], sources: string[] = []): Promise<Allowlist> {
  const key = JSON.stringify([entries, sources]);
  let list = run.allowlists.get(key);
  if (!list) {
    const read = sources.map(async (source) => {
      const location = run.load.reader.resolve(source, null);
      let lines: Lines;
      try {
        lines = await loadList(location, { ...run.load, tracked: true });
      } catch (e) {
        throw asSourceError(source, e, run.signal, 'allowlist file');
      }
      return lines.text.flatMap((text, i) => {
        if (text.trim().length === 0 || isComment(text.trim())) return [];
        const names = allowFileNames(text);
        if (names.length > 0) return names;
        const line = lines.from ? unpackOrigin(lines.from[i])?.line : undefined;
        const at = line === undefined ? '' : `line ${line}: `;
        throw new SourceError(source, `${at}${JSON.stringify(text)} names no domain`, { role: 'allowlist file' });
      });
    });
    list = Promise.all(read).then((loaded) => new Allowlist([...entries.map((e) => allowEntry(e)!), ...loaded.flat()]));
    run.allowlists.set(key, list);
  }
  return list;
}

function allowReason({ hits }: AllowVerdict, rest: string | null): string {
  const names = hits.map(({ name, entry }) => (name === entry ? name : `${name} (under ${entry})`)).join(', ');
  const kept = rest === null ? '' : `; the line keeps the rest: ${rest}`;
  return `${names} ${hits.length > 1 ? 'are' : 'is'} allowlisted${kept}`;
}

/**
 * Removes the rules that block an allowlisted domain. A hosts line that names other domains too
 * keeps those: it is rewritten (rare; the list then goes on as strings).
 */
function allowStep(run: Run, scope: Scope, lines: List, allow: Allowlist): List {
  if (allow.size === 0) return lines;
  const { engine } = run;
  return step(run, scope, 'Allowlist', lines, (ctx) => {
    const n = engine.count(lines);
    const keep = new Uint8Array(n);
    let rewrites: Map<number, string> | null = null;
    for (let i = 0; i < n; i += 1) {
      const text = engine.text(lines, i);
      const verdict = allow.mayCover(text) ? allow.check(text) : null;
      if (verdict === null) {
        keep[i] = 1;
        continue;
      }
      if (verdict.rest !== null) {
        keep[i] = 1;
        rewrites ??= new Map();
        rewrites.set(i, verdict.rest);
      }
      if (ctx.reporting) ctx.removed(text, engine.origin(lines, i), 'allowlisted', allowReason(verdict, verdict.rest));
    }
    if (rewrites === null) return engine.keep(lines, keep);
    const all = engine.lines(lines);
    const text = all.text.map((t, i) => rewrites.get(i) ?? t);
    return engine.keep(engine.fromLines(all.from ? { text, from: all.from } : { text }), keep);
  });
}

/** A scope's filters, allowlist and transformations over its list, given as the parts it is joined from. */
async function applyScope(run: Run, scope: Scope, parts: List[], cfg: SourceConfig | Configuration) {
  const [exclusions, inclusions, allow] = await Promise.all([
    patternSet(run, 'exclusions file', cfg.exclusions, cfg.exclusions_sources),
    patternSet(run, 'inclusions file', cfg.inclusions, cfg.inclusions_sources),
    allowlist(run, cfg.allow, cfg.allow_sources),
  ]);
  const kept = filterStep(run, scope, filterStep(run, scope, parts, exclusions, true), inclusions, false);
  let out = kept.length === 1 ? kept[0] : run.engine.concat(kept, run.load.tracked);
  // Where the rest of this scope runs on strings (slower), the log says so (printed with -v).
  const where = scope.kind === 'global' ? 'list' : `source ${scope.index + 1}`;
  const note = (why: string | null, then: string) => why !== null && engineNote(run, `${where}: ${why}, so ${then}`);
  // The list the sources make leaves the fast form only where a source in it has.
  if (scope.kind === 'global')
    note(run.engine.fallback(out) && 'a source in it compiles on strings', 'it compiles on strings');
  const packedBefore = run.engine.fallback(out) === null;
  out = allowStep(run, scope, out, allow);
  if (packedBefore && run.engine.fallback(out) !== null)
    note('the allowlist rewrote a hosts line that names other domains too', 'the steps from it on run on strings');
  for (const t of planTransformations(cfg.transformations ?? [])) {
    const input = out;
    const fast = run.engine.fallback(input) === null;
    const why = fast ? run.engine.fallback(input, t) : null;
    note(why, 'the steps from it on run on strings');
    out = step(run, scope, t.name, input, (ctx) => run.engine.apply(t, input, ctx));
    // A fast form may hand the list back as strings (the kernel had no room for it).
    if (fast && why === null) note(run.engine.fallback(out, t), 'it and the steps after it run on strings');
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
): Promise<List | null> {
  run.emit({ type: 'source:start', index, source: source.source });
  const started = performance.now();
  let lines: List;
  let location: string | null = null;
  let failed: Pick<SourceStat, 'error' | 'stale'> = {};
  try {
    location = run.load.reader.resolve(source.source, null);
    lines = await run.engine.load(location, run.load);
  } catch (e) {
    const error = asSourceError(source.source, e, run.signal);
    if (error instanceof AbortedError) throw error;
    const copy = run.stale && location !== null ? await staleCopy(run, source.source, location, error) : null;
    run.emit({ type: 'source:error', index, source: source.source, error: error.message, skipped: run.skip });
    if (copy !== null) {
      lines = copy.lines;
      failed = { error: error.message, stale: copy.stale };
    } else {
      const durationMs = performance.now() - started;
      if (run.report)
        run.report.sources[index] = { source: source.source, lineCount: 0, durationMs, error: error.message };
      if (!run.skip) throw error;
      warn(run, { code: 'source-skipped', severity: 'warning', source: source.source, message: error.message });
      // Left out, it keeps its turn: the sources after it still wait for those before it.
      await turn;
      return null;
    }
  }
  const durationMs = performance.now() - started;
  await turn;
  const lineCount = run.engine.count(lines);
  run.emit({ type: 'source:complete', index, source: source.source, lineCount, durationMs });
  if (run.report) run.report.sources[index] = { source: source.source, lineCount, durationMs, ...failed };
  const why = run.engine.fallback(lines);
  if (why !== null) engineNote(run, `source ${index + 1}: ${why}, so it and the whole list compile on strings`);
  const out = await applyScope(run, { kind: 'source', index, source: source.source }, [lines], source);
  run.emit({ type: 'progress', phase: 'load', completed: index + 1, total });
  return out;
}

/**
 * The last good copy of a failed source, loaded, with a warning that names the source and the
 * copy's age; null when the reader has none. A copy older than `maxStaleMs` fails the source.
 */
async function staleCopy(run: Run, source: string, location: string, error: Error) {
  const reader = run.load.reader;
  const copy = (await reader.lastGood?.(location)) ?? null;
  if (copy === null) return null;
  // The copy's age is real time, not the list's (SOURCE_DATE_EPOCH) clock.
  const ageMs = Math.max(0, Date.now() - copy.at.getTime());
  if (run.maxStaleMs !== undefined && ageMs > run.maxStaleMs) {
    const why = error.message.replace(/^Source \S+ failed: /, '');
    const max = formatAge(run.maxStaleMs);
    throw new SourceError(source, `${why}; its cached copy is ${formatAge(ageMs)} old, older than maxStale ${max}`, {
      cause: error,
    });
  }
  // The copy stands in for the source's own text; what it includes is read as always.
  const stand: SourceReader = {
    resolve: (ref, base) => reader.resolve(ref, base),
    read: (at, signal) => (at === location ? Promise.resolve(copy.text) : reader.read(at, signal)),
  };
  const lines = await run.engine.load(location, { ...run.load, reader: stand });
  const age = formatAge(ageMs);
  const message = `${error.message}; compiled its cached copy of ${copy.at.toISOString()} instead (${age} old)`;
  warn(run, { code: 'source-stale', severity: 'warning', source, message });
  return { lines, stale: { storedAt: copy.at.toISOString(), ageSeconds: Math.round(ageMs / 1000) } };
}

/**
 * Removes the rules whose every name does not exist (NXDOMAIN), as `check` finds: only rules
 * about whole domain names (`||name^`, hosts lines, bare names, their exceptions) are asked about.
 */
async function deadDomainStep(run: Run, lines: List, check: NonNullable<CompileOptions['deadDomains']>) {
  const { engine } = run;
  const n = engine.count(lines);
  const namesOf: (string[] | null)[] = new Array(n).fill(null);
  const asked = new Set<string>();
  for (let i = 0; i < n; i += 1) {
    const rule = dnsRule(engine.text(lines, i));
    if (rule === null || rule.kind === 'other' || rule.names.length === 0) continue;
    namesOf[i] = rule.names;
    for (const name of rule.names) asked.add(name);
  }
  checkAborted(run.signal);
  const dead = asked.size === 0 ? new Set<string>() : await check([...asked]);
  if (dead.size === 0) return lines;
  return step(run, { kind: 'global' }, 'Dead domains', lines, (ctx) => {
    const keep = new Uint8Array(n);
    for (let i = 0; i < n; i += 1) {
      const names = namesOf[i];
      if (names === null || !names.every((name) => dead.has(name))) {
        keep[i] = 1;
        continue;
      }
      if (ctx.reporting) {
        const which = names.join(', ');
        ctx.removed(
          engine.text(lines, i),
          engine.origin(lines, i),
          'dead-domain',
          `${which}: no such domain (NXDOMAIN)`,
        );
      }
    }
    return engine.keep(lines, keep);
  });
}

/** Hands every rule of `list` (not a comment or blank line) to `sink` with its provenance. */
function emitKept(run: Run, list: List, sink: (rule: KeptRule) => void, engine = run.engine): void {
  const n = engine.count(list);
  for (let i = 0; i < n; i += 1) {
    const text = engine.text(list, i);
    const trimmed = text.trim();
    if (trimmed.length === 0 || isComment(trimmed)) continue;
    const origin = engine.origin(list, i);
    const at = origin === undefined ? null : unpackOrigin(origin);
    sink({ source: at ? run.load.files[at.file] : null, line: at?.line ?? null, text });
  }
}

/** Codes of rules a format leaves out because it cannot say them (the others a higher rank overrides). */
const UNSAYABLE: ReadonlySet<RemovalCode> = new Set([
  'format-cosmetic',
  'format-regex',
  'format-pattern',
  'format-modifier',
  'format-exception',
  'format-rewrite',
]);

/** The count on stderr of what a format left out or wrote for the name alone; the report has each. */
function formatWarnings(run: Run, format: OutputFormat, counts: Map<RemovalCode, number>): void {
  const byCode = (codes: (code: RemovalCode) => boolean) => {
    const parts = [...counts].filter(([code]) => codes(code));
    return { total: parts.reduce((n, [, c]) => n + c, 0), list: parts.map(([code, c]) => `${c} ${code}`).join(', ') };
  };
  const unsayable = byCode((code) => UNSAYABLE.has(code));
  if (unsayable.total > 0) {
    const message = `${unsayable.total} rule(s) cannot be expressed in ${format} format and were left out`;
    warn(run, { code: 'unsupported-in-format', severity: 'warning', message: `${message} (${unsayable.list})` });
  }
  const overridden = counts.get('format-overridden') ?? 0;
  if (overridden > 0) {
    const message = `${overridden} rule(s) left out of the ${format} output: a rule of a higher rank overrides them`;
    warn(run, { code: 'unsupported-in-format', severity: 'warning', message: `${message} (format-overridden)` });
  }
  const narrowed = counts.get('format-narrowed') ?? 0;
  if (narrowed > 0) {
    const message = `${narrowed} rule(s) for a domain and its subdomains written for the domain alone`;
    const why = `${format} format cannot block subdomains (format-narrowed)`;
    warn(run, { code: 'narrowed-in-format', severity: 'warning', message: `${message}: ${why}` });
  }
}

/**
 * The engine, chosen once: without the packed one, `stringEngine` alone compiles everything. A
 * compile where WebAssembly is missing, which Compress, Deduplicate, splitting and joining run in
 * on packed lists, runs on strings; the log says so.
 */
function chooseEngine(packed: boolean, emit: EventSink): Engine<List> {
  if (!packed) return stringEngine as Engine<List>;
  if (kernelModule() !== null) return packedEngine as Engine<List>;
  engineNote({ emit }, 'WebAssembly is missing, so the list compiles on strings');
  return stringEngine as Engine<List>;
}

/**
 * Compiles a filter list: every source is loaded, filtered and transformed, wrapped
 * in its source block, then the whole list is filtered and transformed and given its
 * header. Output equals @adguard/hostlist-compiler's apart from documented divergences.
 */
export async function compile(config: Configuration, options: CompileOptions): Promise<CompileResult> {
  // Aborted by the caller, or by the first source that fails. Not AbortSignal.any: on Node 20 each
  // signal it makes stays alive as long as the caller's (nodejs/node#55351), and a server's may live long.
  const controller = new AbortController();
  const signal = controller.signal;
  const outer = options.signal;
  const forward = () => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  outer?.addEventListener('abort', forward, { once: true });
  const tracked = options.report === true || options.onRemoved !== undefined || options.onKept !== undefined;
  const emit = options.onEvent ?? (() => undefined);
  const engine = chooseEngine(options.packed !== false, emit);
  const format = options.format ?? config.format ?? 'adblock';
  const report: CompileReport | undefined =
    options.report === true ? { format, sources: [], transformations: [], removed: [], kept: [] } : undefined;
  const run: Run = {
    engine,
    signal,
    load: { reader: options.reader, signal, tracked, files: [] },
    emit,
    diagnostics: [],
    report,
    skip: config.onSourceError === 'skip',
    stale: config.onSourceError === 'stale',
    maxStaleMs: options.maxStaleMs,
    removed: options.onRemoved ?? (report ? (line) => report.removed.push(line) : null),
    patternSets: new Map(),
    allowlists: new Map(),
  };
  try {
    checkAborted(run.signal);
    const turns: Promise<List | null>[] = [];
    // The next source's turn comes when this one is done, whether it failed or not.
    config.sources.forEach((s, i) => {
      turns.push(compileSource(run, s, i, config.sources.length, turns[i - 1] ?? Promise.resolve()));
    });
    // A source that fails stops the others.
    const perSource = await Promise.all(turns).catch((e: unknown) => {
      controller.abort(e);
      throw e;
    });
    const parts = config.sources.flatMap((source, i) => {
      const lines = perSource[i];
      return lines ? [engine.synthetic(sourceHeader(source)), lines] : [];
    });
    let list = await applyScope(run, { kind: 'global' }, parts, config);
    if (options.deadDomains) list = await deadDomainStep(run, list, options.deadDomains);
    const compiledAt = (options.now ?? (() => new Date()))();
    list = engine.concat([engine.synthetic(listHeader(config, compiledAt, options.compiler)), list], tracked);
    const kept = options.onKept ?? (report ? (rule: KeptRule) => report.kept.push(rule) : null);
    let ruleCount: number | undefined;
    if (format === 'adblock') {
      if (kept) emitKept(run, list, kept);
    } else {
      const hostsAddresses = options.hostsAddresses ?? DEFAULT_HOSTS_ADDRESSES;
      const recorder = removalRecorder(run, { kind: 'global' }, `format:${format}`);
      const compiled = engine.lines(list);
      const formatted = writeFormat(compiled, format, { compiledAt, hostsAddresses }, recorder);
      formatWarnings(run, format, formatted.counts);
      if (kept) emitKept(run, compiled, kept, stringEngine as Engine<List>);
      list = engine.fromLines(formatted.lines);
      ruleCount = formatted.ruleCount;
    }
    run.emit({ type: 'progress', phase: 'output', completed: 1, total: 1 });
    // A packed list becomes strings only if someone asks.
    let lines: string[] | undefined;
    return {
      compiledAt,
      diagnostics: run.diagnostics,
      report,
      get lines() {
        lines ??= engine.lines(list).text;
        return lines;
      },
      lineCount: engine.count(list),
      bytes: () => engine.bytes(list),
      ruleCount: ruleCount ?? engine.ruleCount(list),
    };
  } finally {
    outer?.removeEventListener('abort', forward);
  }
}
