import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Job, JobKind, JobStore, Lease } from '../store/jobs.js';
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
  /** A wake-up came while the queue was being looked at: look once more after. */
  private again = false;
  private unlisten: Promise<() => Promise<void>> | undefined;
  private stopped = false;
  private lastSweep = 0;

  constructor(
    private readonly jobs: JobStore,
    private readonly execute: JobExecutor,
    readonly options: QueueOptions,
    private readonly now: () => number,
    private readonly log: (m: string) => void = () => undefined,
  ) {
    this.events.setMaxListeners(0);
  }

  /**
   * Starts looking at the queue (once; `wake` starts it too): every `pollMs`, for jobs whose
   * lease lapsed and wake-ups missed, and at once when another process makes a job claimable.
   */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.tick(), this.options.pollMs);
    this.timer.unref();
    this.unlisten = this.jobs.listen(() => void this.pump(), this.log);
    void this.pump();
  }

  /** Writes a queued job (on PostgreSQL, with the wake-up of every server on the database). */
  async enqueue(job: { id: string; ownerId: string; kind: JobKind; payload: unknown; createdAt: string }) {
    await this.jobs.enqueue(job);
    this.wake();
  }

  /** A job was enqueued: look now rather than at the next tick. */
  wake(): void {
    if (!this.timer) this.start();
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
    await (await this.unlisten)?.();
    await Promise.allSettled([...this.runs]);
    await this.jobs.release(ids, this.instance).catch((e: Error) => this.log(`queue: release failed: ${e.message}`));
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
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        while (!this.stopped && this.running.size < this.options.workers) {
          const job = await this.jobs.claim(this.lease(), new Date(this.now()).toISOString());
          if (!job) break;
          void this.run(job).then(() => this.pump());
        }
      } while (this.again && !this.stopped);
    } catch (e) {
      this.log(`queue: ${(e as Error).message}`);
    } finally {
      this.pumping = false;
    }
  }

  /** Runs a claimed job to its end; one whose end could not be written runs again once its lease lapses. */
  private run(job: Job): Promise<void> {
    const run = this.runToEnd(job);
    this.runs.add(run);
    return run.finally(() => this.runs.delete(run));
  }

  private async runToEnd(job: Job): Promise<void> {
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
      }
    }
    emit('finished', {});
  }
}
