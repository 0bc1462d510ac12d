import type { MigrationUp } from './columns.js';

/** The key an API key was made with (null: made by a session), so that revoking a key revokes what it made. */
export const up: MigrationUp = async (db) => {
  await db.schema.alterTable('api_keys').addColumn('parent_id', 'text').execute();
  await db.schema.createIndex('api_keys_parent').on('api_keys').column('parent_id').execute();
};
