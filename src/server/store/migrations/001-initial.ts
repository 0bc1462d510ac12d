import type { MigrationUp } from './columns.js';
import { idColumn, idType } from './columns.js';

/** Deployments (one row per start of a server version), health checks and the db-smoke scratch table. */
export const up: MigrationUp = async (db, engine) => {
  await db.schema
    .createTable('deployments')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('node_version', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deployments_started_at').on('deployments').column('started_at').execute();
  await db.schema
    .createTable('health_checks')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('checked_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('smoke')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('written_at', 'text', (c) => c.notNull())
    .execute();
};
