import type { Selectable } from 'kysely';
import type { Store } from './store.js';
import type { Camel } from './rows.js';
import type { Database } from './schema.js';

/** States of a queued job; see `docs/server.md` ("Asynchronous compiles") for the transitions. */
export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export type JobKind = 'compile' | 'batch' | 'workflow';

export const FINISHED_STATES: readonly JobState[] = ['completed', 'failed', 'cancelled'];

/** A job's row, camelCase, without its lease; payload and result decoded. */
export type Job = Omit<Camel<Selectable<Database['jobs']>>, 'payload' | 'result' | 'leaseOwner' | 'leaseUntil'> & {
  payload: unknown;
  result: unknown | null;
};

/** One step of a workflow as recorded: its row, camelCase, by its index; output decoded. */
export type WorkflowStep = { index: number } & Omit<
  Camel<Selectable<Database['workflow_steps']>>,
  'jobId' | 'stepIndex' | 'output'
> & { output: unknown | null };

/** A claim on a job: who runs it and until when, unless renewed. */
export interface Lease {
  owner: string;
  until: string;
}

/** The job table's calls (`KyselyStore.jobs`). */
export type JobStore = Store['jobs'];
