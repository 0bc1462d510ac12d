import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Job, JobKind, JobStore, Lease } from '../store/jobs.js';
import type { PgBossDispatch } from './pg-boss-dispatch.js';
import { AbortedError } from '../../core/errors/index.js';

export interface QueueOptions {
  /** Jobs run at once by this process (`--queue-workers`). */
  workers: number;
  /** How long a finished job and its result are kept (`--queue-retention`, in seconds there). */
  retentionMs: number;
  /** How long a claim holds without renewal; a process that died loses its jobs after this. */
  leaseMs: number;
  /** How often the queue is looked at for new jobs, leases renewed and cancellations noticed. */
  pollMs: number;
}

export const QUEUE_DEFAULTS: QueueOptions = { workers: 2, retentionMs: 24 * 3_600_000, leaseMs: 10_000, pollMs: 500 };

type RunOutcome = 'ended' | 'stopped' | 'unrecorded';

/** What one job emits while it runs: the compile's events, as `/api/compile/stream` sends them. */
export type JobEmit = (event: string, data: unknown) => void;
export type JobExecutor = (job: Job, signal: AbortSignal, emit: JobEmit) => Promise<unknown>;

/**
 * Takes jobs from the store's job table and runs at most `workers` of them at once. A job is
 * claimed under a lease this process renews while the job runs; its result is written in the
 * statement that ends it, and only while the lease is still this process's, so a job completes
 * exactly once even when a process that died comes back. A cancelled job (seen when the lease is
 * renewed, or at once when the cancel reaches this process) is stopped through its abort signal.
 */
export class JobRunner {
  /** This process's name on the leases it holds. */
  readonly instance = randomUUID();
  private readonly running = new Map<string, AbortController>();
  private readonly runs = new Set<Promise<unknown>>();
  private readonly events = new EventEmitter();
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private stopped = false;
  private lastSweep = 0;

  constructor(
    private readonly jobs: JobStore,
    private readonly execute: JobExecutor,
    readonly options: QueueOptions,
    private readonly now: () => number,
    private readonly log: (m: string) => void = () => undefined,
    /** On PostgreSQL, pg-boss delivers the jobs; without it this process looks for them itself. */
    private readonly dispatch?: PgBossDispatch,
  ) {
    this.events.setMaxListeners(0);
  }

  /** Starts looking at the queue (once; `wake` starts it too). */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.tick(), this.options.pollMs);
    this.timer.unref();
    if (this.dispatch)
      this.dispatch.start((id) => this.deliver(id)).catch((e: Error) => this.log(`queue: pg-boss: ${e.message}`));
    else void this.pump();
  }

  /** Writes a queued job (and, on PostgreSQL, its pg-boss message in the same transaction). */
  async enqueue(job: { id: string; ownerId: string; kind: JobKind; payload: unknown; createdAt: string }) {
    const dispatch = this.dispatch;
    await this.jobs.enqueue(job, dispatch ? (sql) => dispatch.enqueued(job.id, sql) : undefined);
    this.wake();
  }

  /**
   * Runs the job pg-boss delivered. Throws, so that pg-boss delivers it again later, when the job
   * runs under another process's live lease or this server stopped during it.
   */
  private async deliver(id: string): Promise<void> {
    if (this.stopped) throw new Error('the server is stopping');
    const claimed = await this.jobs.claimById(id, this.lease(), new Date(this.now()).toISOString());
    if (claimed === 'ended') return;
    if (claimed === 'held') throw new Error(`job ${id} runs in another process`);
    const outcome = await this.run(claimed);
    if (outcome !== 'ended') throw new Error(`job ${id} did not end here (${outcome}); it runs again`);
  }

  /** A job was enqueued: look now rather than at the next tick. */
  wake(): void {
    if (!this.timer) this.start();
    this.dispatch?.wake();
    void this.pump();
  }

  /** Stops a job this process runs (it was cancelled in the store). */
  abort(id: string): void {
    this.running.get(id)?.abort(new AbortedError(new Error('the job was cancelled')));
  }

  /** Listens to one job's events while this process runs it; answers the unsubscribe. */
  subscribe(id: string, listener: (event: string, data: unknown) => void): () => void {
    this.events.on(id, listener);
    return () => this.events.off(id, listener);
  }

  get active(): number {
    return this.running.size;
  }

  /** Stops taking jobs; those running here stop and go back to the queue for the next run. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    const ids = [...this.running.keys()];
    for (const controller of this.running.values())
      controller.abort(new AbortedError(new Error('the server is shutting down')));
    await this.dispatch?.stopFetching();
    await Promise.allSettled([...this.runs]);
    await this.jobs.release(ids, this.instance).catch((e: Error) => this.log(`queue: release failed: ${e.message}`));
    await this.dispatch?.stop();
  }

  private lease(): Lease {
    return { owner: this.instance, until: new Date(this.now() + this.options.leaseMs).toISOString() };
  }

  private async tick(): Promise<void> {
    try {
      const lost = await this.jobs.renew([...this.running.keys()], this.lease());
      for (const id of lost) this.abort(id);
      // Expired results go within a minute (sooner when they are kept less than that).
      if (this.now() - this.lastSweep >= Math.min(60_000, this.options.retentionMs)) {
        this.lastSweep = this.now();
        await this.jobs.sweep(new Date(this.now() - this.options.retentionMs).toISOString());
      }
    } catch (e) {
      this.log(`queue: ${(e as Error).message}`);
    }
    await this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping || this.stopped || this.dispatch) return;
    this.pumping = true;
    try {
      while (!this.stopped && this.running.size < this.options.workers) {
        const job = await this.jobs.claim(this.lease(), new Date(this.now()).toISOString());
        if (!job) break;
        void this.run(job).then(() => this.pump());
      }
    } catch (e) {
      this.log(`queue: ${(e as Error).message}`);
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Runs a claimed job to its end: `stopped` when this server's shutdown cut it short,
   * `unrecorded` when its end could not be written (it runs again once its lease lapses).
   */
  private run(job: Job): Promise<RunOutcome> {
    const run = this.runToEnd(job);
    this.runs.add(run);
    return run.finally(() => this.runs.delete(run));
  }

  private async runToEnd(job: Job): Promise<RunOutcome> {
    const controller = new AbortController();
    this.running.set(job.id, controller);
    const emit: JobEmit = (event, data) => this.events.emit(job.id, event, data);
    const started = performance.now();
    let end: { state: 'completed' | 'failed'; result?: unknown; error?: string } | null;
    try {
      end = { state: 'completed', result: await this.execute(job, controller.signal, emit) };
    } catch (e) {
      // Cancelled, taken by another process, or the server is stopping: nothing is written here.
      end = controller.signal.aborted ? null : { state: 'failed', error: (e as Error).message };
    } finally {
      this.running.delete(job.id);
    }
    if (end) {
      const at = new Date(this.now()).toISOString();
      const durationMs = Math.round(performance.now() - started);
      try {
        const written = await this.jobs.finish(job.id, this.instance, { ...end, at, durationMs });
        if (!written) this.log(`queue: job ${job.id} ended elsewhere; its result here is dropped`);
      } catch (e) {
        this.log(`queue: job ${job.id} could not be recorded (${(e as Error).message}); it will run again`);
        emit('finished', {});
        return 'unrecorded';
      }
    }
    emit('finished', {});
    return this.stopped && controller.signal.aborted ? 'stopped' : 'ended';
  }
}
