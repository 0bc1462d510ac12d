import type { MigrationUp } from './columns.js';

/**
 * One-time flash messages (the specification's KV entries `flash:<token>`), in the database so
 * that every server on it can answer a token another one issued. Read once: the read deletes.
 */
export const up: MigrationUp = async (db) => {
  await db.schema
    .createTable('flash_messages')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('code', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('flash_messages_expires').on('flash_messages').column('expires_at').execute();
};
