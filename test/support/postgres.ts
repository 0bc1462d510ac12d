import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { PostgresForTests } from './postgres-setup.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresForTests;
  }
}

/** The run's database (made by postgres-setup.ts), or null with `POSTGRES_SKIP_REASON` saying why. */
export const POSTGRES_URL: string | null = inject('postgres')?.url ?? null;
export const POSTGRES_SKIP_REASON = `PostgreSQL tests skipped: ${inject('postgres')?.reason ?? 'no global setup'}`;

/**
 * A URL to a new, empty schema of the run's database (its `search_path`), so that every store a
 * test opens starts empty, as a new SQLite file does. Dropped with the database at the end.
 */
export async function freshPostgresUrl(): Promise<string> {
  if (!POSTGRES_URL) throw new Error(POSTGRES_SKIP_REASON);
  const schema = `s_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`create schema ${schema}`);
  } finally {
    await client.end();
  }
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}
