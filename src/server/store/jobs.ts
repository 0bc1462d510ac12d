/** States of a queued job; see `docs/server.md` ("Asynchronous compiles") for the transitions. */
export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export type JobKind = 'compile' | 'batch' | 'workflow';

export const FINISHED_STATES: readonly JobState[] = ['completed', 'failed', 'cancelled'];

export interface Job {
  id: string;
  ownerId: string;
  kind: JobKind;
  state: JobState;
  payload: unknown;
  result: unknown | null;
  error: string | null;
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
}

export interface QueueCounts {
  queued: number;
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
  totalProcessingMs: number;
  finishedSince: number;
  oldestQueuedAt: string | null;
}

/** One step of a workflow as recorded. */
export interface WorkflowStep {
  index: number;
  name: string;
  state: 'running' | 'completed' | 'failed';
  attempts: number;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  output: unknown | null;
  error: string | null;
}

/** A claim on a job: who runs it and until when, unless renewed. */
export interface Lease {
  owner: string;
  until: string;
}

/**
 * The job table. Every change of state is one conditional statement, so two processes can never
 * both move a job: a claim takes only a queued job (or one whose lease lapsed), and a result is
 * written only by the lease's holder while the job is still running, in the statement that ends it.
 */
export interface JobStore {
  /** Writes a queued job (on PostgreSQL with the wake-up of `listen`, in the same transaction). */
  enqueue(job: { id: string; ownerId: string; kind: JobKind; payload: unknown; createdAt: string }): Promise<void>;
  /**
   * Calls `onJob` when another process makes a job claimable (PostgreSQL's `LISTEN`; nothing on
   * SQLite, where the table is polled); answers the function that stops listening.
   */
  listen(onJob: () => void, log: (message: string) => void): Promise<() => Promise<void>>;
  job(id: string): Promise<Job | null>;
  /** Takes the oldest job that is queued, or running under a lapsed lease; null when there is none. */
  claim(lease: Lease, now: string): Promise<Job | null>;
  /** Extends the lease of the holder's running jobs; answers the ids it no longer holds (cancelled, taken). */
  renew(ids: string[], lease: Lease): Promise<string[]>;
  /** Ends a running job the lease holder holds; false when it no longer holds it (nothing is written). */
  finish(
    id: string,
    owner: string,
    end: { state: 'completed' | 'failed'; result?: unknown; error?: string; at: string; durationMs: number },
  ): Promise<boolean>;
  /** Puts the holder's running jobs back in the queue (a server shutting down), for the next run to take. */
  release(ids: string[], owner: string): Promise<void>;
  /** Cancels a queued or running job of `ownerId` (any owner when null); false when there was none to cancel. */
  cancel(id: string, ownerId: string | null, at: string): Promise<boolean>;
  /** A page of jobs, newest first; of one owner, or of all when `ownerId` is null. */
  history(ownerId: string | null, limit: number, offset: number): Promise<{ jobs: Job[]; total: number }>;
  counts(since: string): Promise<QueueCounts>;
  /** A workflow's recorded steps, in order (outputs included). */
  steps(jobId: string): Promise<WorkflowStep[]>;
  /** Records that a step started (again: its attempts count up). */
  startStep(jobId: string, index: number, name: string, at: string): Promise<void>;
  endStep(
    jobId: string,
    index: number,
    end: { state: 'completed' | 'failed'; output?: unknown; error?: string; at: string; durationMs: number },
  ): Promise<void>;
  /** Removes finished jobs that ended before `before`; answers how many. */
  sweep(before: string): Promise<number>;
}
