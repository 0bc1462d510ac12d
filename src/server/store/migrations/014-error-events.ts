import type { MigrationUp } from './columns.js';

/** Errors browsers report through `POST /api/log/frontend-error` (the specification's `error_events`). */
export const up: MigrationUp = async (db) => {
  await db.schema
    .createTable('error_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('stack', 'text')
    .addColumn('context', 'text')
    .addColumn('url', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('session_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('error_events_created').on('error_events').column('created_at').execute();
};
