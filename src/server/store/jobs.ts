import type { Store } from './store.js';

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

/** The job table's calls (`KyselyStore.jobs`). */
export type JobStore = Store['jobs'];
