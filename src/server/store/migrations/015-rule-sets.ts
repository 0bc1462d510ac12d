import type { MigrationUp } from './columns.js';

/** Saved rule sets, each owned by the user who made it (and gone with them). */
export const up: MigrationUp = async (db) => {
  await db.schema
    .createTable('rule_sets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('rule_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rule_sets_owner').on('rule_sets').column('owner_id').execute();
};
