import { sql } from 'kysely';
import type { MigrationUp } from './columns.js';

/**
 * Local users as the admin routes manage them (an identifier type, when the row last changed, bans
 * with their reason) and requests per user, UTC day and route pattern (e.g. `POST /api/compile`).
 */
export const up: MigrationUp = async (db, engine) => {
  await db.schema
    .alterTable('users')
    .addColumn('identifier_type', 'text', (c) => c.notNull().defaultTo('email'))
    .execute();
  await db.schema.alterTable('users').addColumn('updated_at', 'text').execute();
  await db.schema.alterTable('users').addColumn('banned_at', 'text').execute();
  await db.schema.alterTable('users').addColumn('ban_reason', 'text').execute();
  await db.updateTable('users').set({ updated_at: sql`created_at` }).execute();
  const usage = db.schema
    .createTable('usage_daily')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_daily_pk', ['user_id', 'day', 'route']);
  await (engine === 'sqlite' ? usage.modifyEnd(sql`without rowid`) : usage).execute();
};
