// Vitest global setup: one fresh PostgreSQL database for the whole test run, dropped at its end.
// The server's base URL is FLC_TEST_DATABASE_URL (default: the machine's local PostgreSQL with
// trust authentication). Without a PostgreSQL there, tests that need one are skipped with the
// reason, except under CI, where the run fails: CI must run them.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { redactUrl } from '../../src/server/store/location.js';
import { UNDER_CI } from './ci.js';

/** The PostgreSQL the tests use unless FLC_TEST_DATABASE_URL names another (the one place it is written). */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** What the global setup provides: the run's database, or why there is none. */
export interface PostgresForTests {
  url: string | null;
  reason: string | null;
}

export default async function setup(project: TestProject) {
  const base = process.env.FLC_TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL;
  const name = `flc_test_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
    await admin.query(`create database ${name}`);
  } catch (err) {
    await admin.end().catch(() => undefined);
    const reason = `no PostgreSQL at ${redactUrl(base)} (${(err as Error).message}); set FLC_TEST_DATABASE_URL`;
    if (UNDER_CI) throw new Error(`CI must run the PostgreSQL tests: ${reason}`);
    project.provide('postgres', { url: null, reason } satisfies PostgresForTests);
    return undefined;
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  project.provide('postgres', { url: url.toString(), reason: null } satisfies PostgresForTests);
  return async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    // The query route's roles made for this run's stores (roles belong to the whole server).
    const roles = await admin.query(
      `select r.rolname from pg_roles r join pg_shdescription d on d.objoid = r.oid
        where r.rolname like 'flc\\_query\\_%' and d.description like $1`,
      [`flc query route of database ${name},%`],
    );
    for (const r of roles.rows) await admin.query(`drop role if exists "${r.rolname}"`).catch(() => undefined);
    await admin.end();
  };
}
