import { sql } from 'kysely';
import type { MigrationUp } from './columns.js';

/** Local users (PBKDF2 hashes, never returned) and sessions (only the SHA-256 of the token is kept). */
export const up: MigrationUp = async (db, engine) => {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Emails are stored lowercase on both engines; SQLite also compares them without case.
    .addColumn('email', 'text', (c) => {
      const unique = c.notNull().unique();
      return engine === 'sqlite' ? unique.modifyEnd(sql`collate nocase`) : unique;
    })
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('password_salt', 'text', (c) => c.notNull())
    .addColumn('password_iterations', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'user')`))
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('banned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('api_disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
};
