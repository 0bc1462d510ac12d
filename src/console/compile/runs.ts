import { randomUUID } from 'node:crypto';
import type { RemovedLine } from '../../core/pipeline/report.js';

/** An event of a run, as `/api/compile/stream` sends it: its name and its data. */
export interface RunEvent {
  event: string;
  data: unknown;
}

export type RunState = 'running' | 'completed' | 'failed' | 'cancelled';

/** One compile started from the console: its events, removed lines and result, kept for its owner. */
export interface Run {
  id: string;
  ownerId: string;
  name: string;
  format: string;
  /** The configuration as checked (its `format` included): another format compiles it again. */
  config: object;
  /**
   * The formats its configuration has been compiled in from one compile form: the run the form
   * started and those compiled again from it in another format share it. Each format once, so
   * one form (and its bot challenge) starts at most one run a format, however often it is replayed.
   */
  formats: Set<string>;
  state: RunState;
  startedAt: number;
  endedAt?: number;
  events: RunEvent[];
  /** Events past `RUN_LIMITS.events` or `RUN_LIMITS.eventBytes` are counted, not kept. */
  eventsDropped: number;
  removed: RemovedLine[];
  /** Removed lines past `RUN_LIMITS.removed` or `RUN_LIMITS.removedBytes` are counted, not kept. */
  removedDropped: number;
  /** The estimated bytes of the removed lines and events kept (`removedLineBytes`, `eventBytes`). */
  heldBytes: { removed: number; events: number };
  result?: { rules: string[]; ruleCount: number; compiledAt: string; totalDurationMs: number };
  error?: string;
  controller: AbortController;
  /** Called on each new event and at the end (the open event streams of the run). */
  listeners: Set<() => void>;
  /** The estimated bytes the ended run holds (its list, report and events), set when it ends. */
  bytes?: number;
}

/**
 * Why a run could not start: the owner's own runs are all going, or the process's are, or its
 * configuration has been compiled in that format from the same form already.
 */
export type RunRefusal = 'owner-busy' | 'server-busy' | 'format-compiled';

/**
 * What a run may hold, and how long: a console compile is for reading its progress and report
 * once, not a store (queued jobs are). At most 3 runs per user, each dropped 30 minutes after it
 * ends; its removed lines up to 100,000 and 16 MiB (estimated), its events up to 5,000 and 1 MiB:
 * bytes too, since a list of long lines (or a configuration of long URLs, which every event
 * repeats) held some 40 MB in one run while it ran, when no bound of the process applies yet.
 * For the whole process, since every signed-in user has their own 3: at most 50 runs going at
 * once, and the ended runs kept hold at most 64 MiB together (estimated) and number at most 300 —
 * past either, the runs that ended first (anyone's) are dropped, though never the one that just
 * ended.
 */
export const RUN_LIMITS = {
  perUser: 3,
  keepMs: 30 * 60_000,
  removed: 100_000,
  removedBytes: 16 * 1024 * 1024,
  events: 5_000,
  eventBytes: 1024 * 1024,
  running: 50,
  keptBytes: 64 * 1024 * 1024,
  kept: 300,
} as const;

/** Bytes a removed line takes, estimated: its strings' characters plus a little for the object. */
export const removedLineBytes = (l: RemovedLine) =>
  l.text.length + l.reason.length + l.transformation.length + (l.source?.length ?? 0) + 96;

/** Bytes an event takes, estimated: its name and its data as JSON, plus a little for the object. */
export const eventBytes = (e: RunEvent) => e.event.length + (JSON.stringify(e.data)?.length ?? 0) + 48;

/** Bytes a run holds, estimated: its strings' characters plus a little for each object. */
export function runBytes(run: Run): number {
  let bytes = 256 + (JSON.stringify(run.config)?.length ?? 0);
  for (const rule of run.result?.rules ?? []) bytes += rule.length + 16;
  return bytes + run.heldBytes.removed + run.heldBytes.events;
}

/** The console's runs, in this process's memory: the process that runs one serves its page and events. */
export class Runs {
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly now: () => number,
    private readonly limits: Record<'perUser' | 'keepMs' | 'running' | 'keptBytes' | 'kept', number> = RUN_LIMITS,
  ) {}

  /**
   * A new run for `ownerId`, or why not: the owner already has `perUser` runs going, or the process
   * `running`. `from` is the run whose configuration this one compiles again in another format.
   */
  start(ownerId: string, name: string, format: string, config: object, from?: Run): Run | RunRefusal {
    this.expire();
    if (from?.formats.has(format)) return 'format-compiled';
    const own = [...this.runs.values()].filter((r) => r.ownerId === ownerId);
    if (own.length >= this.limits.perUser) {
      const oldestDone = own.filter((r) => r.state !== 'running').sort((a, b) => a.startedAt - b.startedAt)[0];
      if (!oldestDone) return 'owner-busy';
      this.runs.delete(oldestDone.id);
    }
    if (this.running() >= this.limits.running) return 'server-busy';
    const formats = from?.formats ?? new Set<string>();
    formats.add(format);
    const run: Run = {
      id: randomUUID(),
      ownerId,
      name,
      format,
      config,
      formats,
      state: 'running',
      startedAt: this.now(),
      events: [],
      eventsDropped: 0,
      removed: [],
      removedDropped: 0,
      heldBytes: { removed: 0, events: 0 },
      controller: new AbortController(),
      listeners: new Set(),
    };
    this.runs.set(run.id, run);
    return run;
  }

  /** The run `id` of `ownerId`; another user's run is as unknown as a missing one. */
  get(id: string, ownerId: string): Run | undefined {
    this.expire();
    const run = this.runs.get(id);
    return run && run.ownerId === ownerId ? run : undefined;
  }

  /** Ends `run` (see `endRun`) and drops the runs that ended first while the ended ones hold too much. */
  end(run: Run, state: Exclude<RunState, 'running'>, error?: string): void {
    if (!endRun(run, state, this.now(), error)) return;
    run.bytes = runBytes(run);
    this.expire();
    const ended = [...this.runs.values()]
      .filter((r) => r.state !== 'running')
      .sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0));
    let bytes = ended.reduce((sum, r) => sum + (r.bytes ?? 0), 0);
    let count = ended.length;
    for (const old of ended) {
      if (bytes <= this.limits.keptBytes && count <= this.limits.kept) break;
      if (old === run) continue;
      this.runs.delete(old.id);
      bytes -= old.bytes ?? 0;
      count -= 1;
    }
  }

  /** The runs going in this process. */
  running(): number {
    let n = 0;
    for (const run of this.runs.values()) if (run.state === 'running') n += 1;
    return n;
  }

  /** The runs kept (going and ended), and the estimated bytes of the ended ones. */
  held(): { runs: number; keptBytes: number } {
    let keptBytes = 0;
    for (const run of this.runs.values()) keptBytes += run.bytes ?? 0;
    return { runs: this.runs.size, keptBytes };
  }

  private expire(): void {
    const now = this.now();
    for (const [id, run] of this.runs)
      if (run.endedAt !== undefined && now - run.endedAt > this.limits.keepMs) this.runs.delete(id);
  }
}

/** Records an event of the run and tells its listeners. */
export function addEvent(run: Run, event: RunEvent): void {
  const bytes = eventBytes(event);
  if (run.events.length < RUN_LIMITS.events && run.heldBytes.events + bytes <= RUN_LIMITS.eventBytes) {
    run.events.push(event);
    run.heldBytes.events += bytes;
  } else run.eventsDropped += 1;
  for (const listener of run.listeners) listener();
}

/** Records a removed line of the run. */
export function addRemoved(run: Run, line: RemovedLine): void {
  const bytes = removedLineBytes(line);
  if (run.removed.length < RUN_LIMITS.removed && run.heldBytes.removed + bytes <= RUN_LIMITS.removedBytes) {
    run.removed.push(line);
    run.heldBytes.removed += bytes;
  } else run.removedDropped += 1;
}

/** Ends the run in `state` (once: false when it had ended) and tells its listeners. */
export function endRun(run: Run, state: Exclude<RunState, 'running'>, now: number, error?: string): boolean {
  if (run.state !== 'running') return false;
  run.state = state;
  run.endedAt = now;
  if (error) run.error = error;
  for (const listener of run.listeners) listener();
  return true;
}
