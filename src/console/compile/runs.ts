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
  state: RunState;
  startedAt: number;
  endedAt?: number;
  events: RunEvent[];
  /** Events past `RUN_LIMITS.events` are counted, not kept. */
  eventsDropped: number;
  removed: RemovedLine[];
  /** Removed lines past `RUN_LIMITS.removed` are counted, not kept. */
  removedDropped: number;
  result?: { rules: string[]; ruleCount: number; compiledAt: string; totalDurationMs: number };
  error?: string;
  controller: AbortController;
  /** Called on each new event and at the end (the open event streams of the run). */
  listeners: Set<() => void>;
}

/**
 * What a run may hold, and how long: a console compile is for reading its progress and report
 * once, not a store (queued jobs are). At most 3 runs per user, each dropped 30 minutes after it
 * ends; its removed lines up to 100,000 and its events up to 5,000.
 */
export const RUN_LIMITS = { perUser: 3, keepMs: 30 * 60_000, removed: 100_000, events: 5_000 } as const;

/** The console's runs, in this process's memory: the process that runs one serves its page and events. */
export class Runs {
  private readonly runs = new Map<string, Run>();

  constructor(private readonly now: () => number) {}

  /** A new run for `ownerId`, or null when the owner already has `perUser` runs going. */
  start(ownerId: string, name: string, format: string, config: object): Run | null {
    this.expire();
    const own = [...this.runs.values()].filter((r) => r.ownerId === ownerId);
    if (own.length >= RUN_LIMITS.perUser) {
      const oldestDone = own.filter((r) => r.state !== 'running').sort((a, b) => a.startedAt - b.startedAt)[0];
      if (!oldestDone) return null;
      this.runs.delete(oldestDone.id);
    }
    const run: Run = {
      id: randomUUID(),
      ownerId,
      name,
      format,
      config,
      state: 'running',
      startedAt: this.now(),
      events: [],
      eventsDropped: 0,
      removed: [],
      removedDropped: 0,
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

  private expire(): void {
    const now = this.now();
    for (const [id, run] of this.runs)
      if (run.endedAt !== undefined && now - run.endedAt > RUN_LIMITS.keepMs) this.runs.delete(id);
  }
}

/** Records an event of the run and tells its listeners. */
export function addEvent(run: Run, event: RunEvent): void {
  if (run.events.length < RUN_LIMITS.events) run.events.push(event);
  else run.eventsDropped += 1;
  for (const listener of run.listeners) listener();
}

/** Records a removed line of the run. */
export function addRemoved(run: Run, line: RemovedLine): void {
  if (run.removed.length < RUN_LIMITS.removed) run.removed.push(line);
  else run.removedDropped += 1;
}

/** Ends the run in `state` (once) and tells its listeners. */
export function endRun(run: Run, state: Exclude<RunState, 'running'>, now: number, error?: string): void {
  if (run.state !== 'running') return;
  run.state = state;
  run.endedAt = now;
  if (error) run.error = error;
  for (const listener of run.listeners) listener();
}
