import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { prepareQueryConnection } from '../../src/server/admin/postgres-query-role.js';
import { postgresReadOnlyQuery, type StopBackend } from '../../src/server/admin/postgres-query.js';
import type { sqliteReadOnlyQuery as fromSource } from '../../src/server/admin/sqlite-query.js';
import { hostileSql } from '../support/hostile-sql.js';
import { freshPostgresUrl, POSTGRES_SKIP_REASON, POSTGRES_URL } from '../support/postgres.js';

/**
 * The query route's boundary without its first line (the parser check): the hostile texts go
 * straight to where statements run (the SQLite process with its plan check and views; the
 * PostgreSQL query role made by a superuser connection). Each layer holds by itself.
 */

const dir = mkdtempSync(join(tmpdir(), 'flc-query-boundary-'));
chmodSync(dir, 0o755);
const MARKER_FILE = join(dir, 'secret.env');
const MARKER = 'FLC_MARKER_boundary_91f3';
writeFileSync(MARKER_FILE, `TOKEN=${MARKER}\n`, { mode: 0o644 });
const DROP = join(dir, 'drop');
const sql = hostileSql(MARKER_FILE, DROP);
const LIMITS = { timeoutMs: 5_000, maxRows: 50, maxBytes: 256 * 1024 };
const password = { hash: 'hash-3f9a8c7d6e5b', salt: 'salt-1a2b3c4d5e6f', iterations: 600_000 };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A store with a user, a session, an API key and a flash entry: secrets to protect. */
async function seeded(location: string) {
  const store = await openStore(location);
  const user = await store.createUser({ email: 'a@example.org', role: 'admin', tier: 'admin', password });
  const session = await startSession(store, user, Date.now());
  return { store, secrets: [password.hash, password.salt, session.token] };
}

function noLeak(answer: unknown, secrets: string[], text: string) {
  const json = JSON.stringify(answer);
  expect(json, text).not.toContain(MARKER);
  expect(json, text).not.toMatch(/root:[^:]*:0:0:/);
  for (const s of secrets) expect(json, text).not.toContain(s);
}

function nothingWritten() {
  expect(readdirSync(dir).filter((f) => f.startsWith('drop'))).toEqual([]);
  expect(existsSync(`${DROP}-w`)).toBe(false);
}

describe('SQLite: the plan check and the redacting views alone', () => {
  let file: string;
  let secrets: string[];
  beforeAll(async () => {
    file = join(dir, 'store.db');
    const s = await seeded(file);
    secrets = s.secrets;
    await s.store.close();
  });

  test('each hostile text is refused or answers nothing secret; the file is unchanged', async () => {
    // The built child starts in a fraction of the time the TypeScript one takes.
    const { sqliteReadOnlyQuery } = (await import('../../dist/server/admin/sqlite-query.js' as string)) as {
      sqliteReadOnlyQuery: typeof fromSource;
    };
    const texts = sql.sqlite().filter((_, i) => i % 3 === 0);
    expect(texts.length).toBeGreaterThan(90);
    let refused = 0;
    for (const text of texts) {
      const answer = await sqliteReadOnlyQuery(file, text, LIMITS).catch((e: Error) => {
        refused += 1;
        return e.message;
      });
      noLeak(answer, secrets, text);
    }
    expect(refused).toBeGreaterThan(texts.length * 0.8);
    nothingWritten();
  }, 300_000);
});

describe('PostgreSQL: the query role alone, prepared by a superuser connection', () => {
  let main: pg.Pool;
  let url: string;
  let secrets: string[];
  const closing: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    if (!POSTGRES_URL) return;
    url = await freshPostgresUrl();
    const s = await seeded(url);
    secrets = s.secrets;
    await s.store.close();
    main = new pg.Pool({ connectionString: url, max: 2 });
    closing.push(() => main.end());
  });
  afterAll(async () => {
    for (const c of closing) await c();
  });

  test('the route refuses to run as a superuser; the role it makes is none', async (ctx) => {
    if (!POSTGRES_URL) return ctx.skip(POSTGRES_SKIP_REASON);
    const asSuperuser = await prepareQueryConnection(main, url, url);
    expect(asSuperuser.pool).toBeNull();
    expect(asSuperuser.refusal).toMatch(/superuser/);
    const made = await prepareQueryConnection(main, url, undefined);
    expect(made.refusal).toBeNull();
    closing.push(() => made.pool?.end() ?? Promise.resolve());
    const who = await postgresReadOnlyQuery(
      made.pool as pg.Pool,
      'select current_user, (select rolsuper from pg_roles where rolname = current_user)',
      LIMITS,
      made.stop as StopBackend,
    );
    expect(who.rows[0]).toEqual([made.role, false]);
  });

  test('each hostile text is refused or answers nothing secret; no setting or row changes', async (ctx) => {
    if (!POSTGRES_URL) return ctx.skip(POSTGRES_SKIP_REASON);
    const made = await prepareQueryConnection(main, url, undefined);
    closing.push(() => made.pool?.end() ?? Promise.resolve());
    const pool = made.pool as pg.Pool;
    const schema = new URL(url).searchParams.get('options')?.replace('-c search_path=', '') ?? '';
    const stored = (await main.query(`select password from ${made.role}.login`)).rows[0].password as string;
    const fingerprint = async () =>
      (
        await main.query(`select (select count(*) from users) || '/' || (select count(*) from sessions) || '/' ||
          (select count(*) from pg_db_role_setting) || '/' || (select count(*) from pg_largeobject_metadata) || '/' ||
          (select count(*) from pg_file_settings where sourcefile like '%auto.conf') as c`)
      ).rows[0].c;
    const before = await fingerprint();
    const texts = sql.postgres(schema, made.role as string);
    let refused = 0;
    for (const text of texts) {
      const answer = await postgresReadOnlyQuery(pool, text, LIMITS, made.stop as StopBackend).catch((e: Error) => {
        refused += 1;
        return e.message;
      });
      noLeak(answer, [...secrets, stored], text);
      // Whatever the text did to its session, the next query runs as the same low-privilege role.
      const who = await postgresReadOnlyQuery(
        pool,
        'select current_user, session_user',
        LIMITS,
        made.stop as StopBackend,
      );
      expect(who.rows[0], text).toEqual([made.role, made.role]);
    }
    expect(refused).toBeGreaterThan(texts.length / 2);
    expect(await fingerprint()).toBe(before);
    nothingWritten();
  }, 300_000);
});
