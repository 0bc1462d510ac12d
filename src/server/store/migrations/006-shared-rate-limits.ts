import type { MigrationUp } from './columns.js';

/**
 * The counters rate-limiter-flexible keeps on PostgreSQL, so that every process on one database
 * counts together (its own table layout). SQLite serves one process and counts in memory.
 */
export const up: MigrationUp = async (db, engine) => {
  if (engine !== 'postgres') return;
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expire', 'bigint')
    .execute();
};
