import type { MigrationUp } from './columns.js';

/**
 * The durable job queue: one row per asynchronous compile, with its owner, state, attempts and
 * result. A running row carries a lease (who runs it, until when); a lease that lapses without
 * being renewed means its process died, and another run takes the job again.
 */
export const up: MigrationUp = async (db) => {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .execute();
  await db.schema.createIndex('jobs_state_created').on('jobs').columns(['state', 'created_at']).execute();
  await db.schema.createIndex('jobs_owner_created').on('jobs').columns(['owner_id', 'created_at']).execute();
};
