import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import type { Database } from '../schema.js';
import { FINISHED_STATES, type Job, type JobKind, type JobState, type Lease, type WorkflowStep } from '../jobs.js';
import { camel, snake } from '../rows.js';
import { countOf, type Db } from './db.js';
import type { Engine } from '../migrations/columns.js';
import { signalJobs } from '../job-signal.js';

/** The job table's queries; each change of state is one conditional statement. */

const toJob = ({ lease_owner, lease_until, ...r }: Selectable<Database['jobs']>, withResult = true): Job => ({
  ...camel(r),
  payload: JSON.parse(r.payload),
  result: withResult && r.result !== null ? JSON.parse(r.result) : null,
});

export async function enqueue(
  db: Db,
  job: { id: string; ownerId: string; kind: JobKind; payload: unknown; createdAt: string },
  engine: Engine,
): Promise<void> {
  await db
    .insertInto('jobs')
    .values({ ...snake(job), state: 'queued', payload: JSON.stringify(job.payload) })
    .execute();
  if (engine === 'postgres') await signalJobs(db);
}

export async function job(db: Db, id: string): Promise<Job | null> {
  const row = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toJob(row) : null;
}

const claimable = (now: string) => (e: ExpressionBuilder<Database, 'jobs'>) =>
  e.or([e('state', '=', 'queued'), e.and([e('state', '=', 'running'), e('lease_until', '<', now)])]);

/**
 * The next job, round-robin across owners: of the owner with the fewest jobs running, then the
 * one served longest ago (its latest start; never served first), its oldest claimable job. Then a
 * conditional update that only one claimant can win.
 */
export async function claim(db: Db, lease: Lease, now: string): Promise<Job | null> {
  for (let tries = 0; tries < 5; tries += 1) {
    const candidate = await db
      .selectFrom('jobs')
      .select('id')
      .where(claimable(now))
      .orderBy((e) =>
        e
          .selectFrom('jobs as r')
          .select((r) => r.fn.countAll().as('running'))
          .whereRef('r.owner_id', '=', 'jobs.owner_id')
          .where('r.state', '=', 'running')
          .where('r.lease_until', '>=', now),
      )
      .orderBy((e) =>
        e
          .selectFrom('jobs as s')
          .select(sql<string>`coalesce(max(s.started_at), '')`.as('served'))
          .whereRef('s.owner_id', '=', 'jobs.owner_id'),
      )
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (!candidate) return null;
    const row = await db
      .updateTable('jobs')
      .set({
        state: 'running',
        lease_owner: lease.owner,
        lease_until: lease.until,
        started_at: now,
        attempts: sql<number>`attempts + 1`,
      })
      .where('id', '=', candidate.id)
      .where(claimable(now))
      .returningAll()
      .executeTakeFirst();
    if (row) return toJob(row);
  }
  return null;
}

export async function renew(db: Db, ids: string[], lease: Lease): Promise<string[]> {
  if (ids.length === 0) return [];
  const held = await db
    .updateTable('jobs')
    .set({ lease_until: lease.until })
    .where('id', 'in', ids)
    .where('state', '=', 'running')
    .where('lease_owner', '=', lease.owner)
    .returning('id')
    .execute();
  const kept = new Set(held.map((r) => r.id));
  return ids.filter((id) => !kept.has(id));
}

export async function finish(
  db: Db,
  id: string,
  owner: string,
  end: { state: 'completed' | 'failed'; result?: unknown; error?: string; at: string; durationMs: number },
): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({
      state: end.state,
      result: end.result === undefined ? null : JSON.stringify(end.result),
      error: end.error ?? null,
      finished_at: end.at,
      duration_ms: end.durationMs,
      lease_owner: null,
      lease_until: null,
    })
    .where('id', '=', id)
    .where('state', '=', 'running')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return false;
  // A workflow's last step, `store`, is this write: it ends with it, in the same transaction.
  await db
    .updateTable('workflow_steps')
    .set({
      state: end.state,
      finished_at: end.at,
      duration_ms: null,
      error: end.error ?? null,
    })
    .where('job_id', '=', id)
    .where('name', '=', 'store')
    .where('state', '=', 'running')
    .execute();
  return true;
}

export async function release(db: Db, ids: string[], owner: string, engine: Engine): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('jobs')
    .set({ state: 'queued', lease_owner: null, lease_until: null })
    .where('id', 'in', ids)
    .where('state', '=', 'running')
    .where('lease_owner', '=', owner)
    .execute();
  if (engine === 'postgres') await signalJobs(db);
}

export async function cancel(db: Db, id: string, ownerId: string | null, at: string): Promise<boolean> {
  let q = db
    .updateTable('jobs')
    .set({ state: 'cancelled', finished_at: at, lease_until: null })
    .where('id', '=', id)
    .where('state', 'in', ['queued', 'running']);
  if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function history(db: Db, ownerId: string | null, limit: number, offset: number) {
  const q = ownerId === null ? db.selectFrom('jobs') : db.selectFrom('jobs').where('owner_id', '=', ownerId);
  const page = await q
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return { jobs: page.map((r) => toJob(r, false)), total: await countOf(q) };
}

/**
 * The queue's statistics at `now` (`GET /api/queue/stats`), from one grouped read: each state's
 * jobs, processing time and finishes in the minute before `now`, and its oldest job.
 */
export async function stats(db: Db, now: number) {
  const minuteAgo = new Date(now - 60_000).toISOString();
  const byState = await db
    .selectFrom('jobs')
    .select((e) => [
      'state',
      e.fn.countAll().as('n'),
      e.fn.sum<number | string | null>('duration_ms').as('ms'),
      e.fn.countAll().filterWhere('finished_at', '>=', minuteAgo).as('since'),
      e.fn.min<string | null>('created_at').as('oldest'),
    ])
    .groupBy('state')
    .execute();
  const of = (state: JobState) => byState.find((r) => r.state === state);
  const n = (state: JobState) => Number(of(state)?.n ?? 0);
  const finished = byState.filter((r) => r.state === 'completed' || r.state === 'failed');
  const totalProcessingTime = finished.reduce((sum, r) => sum + Number(r.ms ?? 0), 0);
  const done = n('completed') + n('failed');
  const oldestQueued = of('queued')?.oldest ?? null;
  return {
    pending: n('queued') + n('running'),
    completed: n('completed'),
    failed: n('failed'),
    cancelled: n('cancelled'),
    totalProcessingTime,
    averageProcessingTime: done === 0 ? 0 : Math.round(totalProcessingTime / done),
    processingRate: finished.reduce((sum, r) => sum + Number(r.since), 0),
    queueLag: oldestQueued === null ? 0 : Math.max(0, now - Date.parse(oldestQueued)),
  };
}

export async function sweep(db: Db, before: string): Promise<number> {
  // Steps go with their job: the foreign key cascades (openSqlite turns SQLite's enforcement on).
  const r = await db
    .deleteFrom('jobs')
    .where('state', 'in', FINISHED_STATES)
    .where('finished_at', '<', before)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function steps(db: Db, jobId: string): Promise<WorkflowStep[]> {
  const rows = await db
    .selectFrom('workflow_steps')
    .selectAll()
    .where('job_id', '=', jobId)
    .orderBy('step_index')
    .execute();
  return rows.map(({ job_id, step_index, ...r }) => ({
    index: step_index,
    ...camel(r),
    output: r.output === null ? null : JSON.parse(r.output),
  }));
}

export async function startStep(db: Db, jobId: string, index: number, name: string, at: string): Promise<void> {
  await db
    .insertInto('workflow_steps')
    .values({ job_id: jobId, step_index: index, name, state: 'running', attempts: 1, started_at: at })
    .onConflict((oc) =>
      oc.columns(['job_id', 'step_index']).doUpdateSet({
        state: 'running',
        attempts: sql`workflow_steps.attempts + 1`,
        started_at: at,
        finished_at: null,
        duration_ms: null,
        error: null,
      }),
    )
    .execute();
}

export async function endStep(
  db: Db,
  jobId: string,
  index: number,
  end: { state: 'completed' | 'failed'; output?: unknown; error?: string; at: string; durationMs: number },
): Promise<void> {
  await db
    .updateTable('workflow_steps')
    .set({
      state: end.state,
      output: end.output === undefined ? null : JSON.stringify(end.output),
      error: end.error ?? null,
      finished_at: end.at,
      duration_ms: end.durationMs,
    })
    .where('job_id', '=', jobId)
    .where('step_index', '=', index)
    .execute();
}
