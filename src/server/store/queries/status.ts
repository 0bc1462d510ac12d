import { sql } from 'kysely';
import type { Deployment, HealthCheck } from '../store.js';
import { camel, snake } from '../rows.js';
import type { Db } from './db.js';

/** Deployments, health checks and the smoke test. */

export async function recordDeployment(db: Db, d: Omit<Deployment, 'id'>): Promise<Deployment> {
  const row = await db.insertInto('deployments').values(snake(d)).returning('id').executeTakeFirstOrThrow();
  return { id: Number(row.id), ...d };
}

export async function deployments(db: Db, limit: number): Promise<Deployment[]> {
  const rows = await db
    .selectFrom('deployments')
    .select(['id', 'version', 'node_version', 'started_at'])
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(camel);
}

export async function deploymentStats(db: Db) {
  const versions = await db
    .selectFrom('deployments')
    .select((e) => [
      'version',
      e.fn.countAll().as('count'),
      e.fn.min('started_at').as('firstStartedAt'),
      e.fn.max('started_at').as('lastStartedAt'),
    ])
    .groupBy('version')
    .orderBy((e) => e.fn.max('id'), 'desc')
    .execute();
  return {
    total: versions.reduce((n, v) => n + Number(v.count), 0),
    versions: versions.map((v) => ({
      version: v.version,
      count: Number(v.count),
      firstStartedAt: String(v.firstStartedAt),
      lastStartedAt: String(v.lastStartedAt),
    })),
  };
}

/** Records a check and keeps the last thousand (one transaction: `db` is one). */
export async function recordHealth(db: Db, check: HealthCheck): Promise<void> {
  await db.insertInto('health_checks').values(snake(check)).execute();
  await db
    .deleteFrom('health_checks')
    .where('id', '<=', (e) => e.selectFrom('health_checks').select(sql<number>`max(id) - 1000`.as('m')))
    .execute();
}

export async function latestHealth(db: Db): Promise<HealthCheck | null> {
  const row = await db
    .selectFrom('health_checks')
    .select(['status', 'version', 'checked_at'])
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? camel(row) : null;
}

/** Writes, reads back and deletes a row (in the caller's transaction). */
export async function smoke(db: Db, at: string): Promise<void> {
  const { id } = await db.insertInto('smoke').values({ written_at: at }).returning('id').executeTakeFirstOrThrow();
  const row = await db.selectFrom('smoke').select('written_at').where('id', '=', id).executeTakeFirst();
  if (row?.written_at !== at) throw new Error('read back a different value');
  await db.deleteFrom('smoke').where('id', '=', id).execute();
}
