import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import Database from 'libsql';
import pg from 'pg';
import { freshPostgresUrl, POSTGRES_SKIP_REASON, POSTGRES_URL } from '../../support/postgres.js';
import { hostileSql } from '../../support/hostile-sql.js';
import { type ServeProcess, startServe } from '../../support/serve-process.js';
import { call, rootAndEditor } from '../../support/serve-accounts.js';

/**
 * Issue 30, point 1, against a real `flc serve` on each engine (PostgreSQL connected as the
 * superuser `postgres`): more than 200 hostile SQL texts sent to `POST /api/admin/neon/query` by a
 * super-admin; none reads a file, writes one, changes the store or a setting, or answers a
 * secret column's value. An editor is refused the route.
 */

const dir = mkdtempSync(join(tmpdir(), 'flc-query-attack-'));
chmodSync(dir, 0o755);
/** A file whose text must never appear in an answer (readable by the database server too). */
const MARKER_FILE = join(dir, 'secret.env');
const MARKER = 'FLC_MARKER_7c1e2b_do_not_leak';
writeFileSync(MARKER_FILE, `TOKEN=${MARKER}\n`, { mode: 0o644 });
/** Where writes would land: nothing may appear here. */
const DROP = join(dir, 'drop');
const sql = hostileSql(MARKER_FILE, DROP);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Target {
  server: ServeProcess;
  token: string;
  editor: string;
  /** Values that must never appear in an answer. */
  secrets: string[];
  /** A count of what could have changed (rows, settings) taken before and after. */
  fingerprint(): Promise<string>;
  texts: string[];
}

/** The two accounts, and an API key so that api_keys.key_hash has a value to protect. */
async function accounts(server: ServeProcess, db: string) {
  const { root, editor } = await rootAndEditor(server, db);
  expect((await call(server.url, 'POST', '/api/keys', root, { name: 'k' })).status).toBe(201);
  return { root, editor };
}

const targets = new Map<string, Target>();
const running: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
});

beforeAll(async () => {
  const file = join(dir, 'store', 'flc.db');
  const sqlite = await startServe(['--db', file]);
  running.push(sqlite);
  const a = await accounts(sqlite, file);
  const read = () => {
    const db = new Database(file, { readonly: true } as never);
    try {
      const rows = db
        .prepare(`select password_hash || ' ' || password_salt as v from users
          union all select token_hash from sessions union all select key_hash from api_keys`)
        .all() as { v: string }[];
      const counts = db
        .prepare(`select (select count(*) from users) || '/' || (select count(*) from sessions) || '/' ||
          (select count(*) from rule_sets) || '/' || (select count(*) from tiers) as c`)
        .get() as { c: string };
      const pragmas = ['journal_mode', 'user_version', 'schema_version']
        .map((p) => JSON.stringify(db.prepare(`pragma ${p}`).all()))
        .join();
      return { secrets: rows.flatMap((r) => r.v.split(' ')), state: `${counts.c} ${pragmas}` };
    } finally {
      db.close();
    }
  };
  targets.set('sqlite', {
    server: sqlite,
    token: a.root,
    editor: a.editor,
    secrets: read().secrets,
    fingerprint: async () => read().state,
    texts: sql.sqlite(),
  });

  if (!POSTGRES_URL) return;
  const url = await freshPostgresUrl();
  const schema = new URL(url).searchParams.get('options')?.replace('-c search_path=', '') ?? '';
  const server = await startServe(['--db', url]);
  running.push(server);
  const b = await accounts(server, url);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const querySchema = (
    await admin.query("select nspname from pg_namespace where nspname like 'flc_query_%' order by oid desc limit 1")
  ).rows[0]?.nspname as string;
  const secrets = (
    await admin.query(`select password_hash as v from users union all select password_salt from users
      union all select token_hash from sessions union all select key_hash from api_keys
      union all select password from ${querySchema}.login`)
  ).rows.map((r) => String(r.v));
  await admin.end();
  targets.set('postgres', {
    server,
    token: b.root,
    editor: b.editor,
    secrets,
    fingerprint: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const r = await c.query(`select (select count(*) from users) || '/' || (select count(*) from sessions) || '/' ||
          (select count(*) from rule_sets) || '/' || (select count(*) from tiers) || '/' ||
          (select count(*) from pg_db_role_setting) || '/' || (select count(*) from pg_largeobject_metadata) || '/' ||
          (select count(*) from pg_file_settings where sourcefile like '%auto.conf') || '/' ||
          (select string_agg(rolname || rolsuper::text, ',' order by rolname) from pg_roles
            where rolname like 'flc_query_%') as c`);
        return String(r.rows[0].c);
      } finally {
        await c.end();
      }
    },
    texts: sql.postgres(schema, querySchema),
  });
}, 120_000);

describe.each(['sqlite', 'postgres'])('%s: the query route of a real flc serve', (engine) => {
  const target = () => {
    const t = targets.get(engine);
    if (!t) throw new Error(POSTGRES_SKIP_REASON);
    return t;
  };

  test('more than 200 hostile texts: no file, no write, no setting, no secret', async (ctx) => {
    if (!targets.has(engine)) return ctx.skip(POSTGRES_SKIP_REASON);
    const t = target();
    expect(t.texts.length).toBeGreaterThanOrEqual(200);
    expect(t.secrets.length).toBeGreaterThanOrEqual(4);
    const before = await t.fingerprint();
    const answered: string[] = [];
    for (const text of t.texts) {
      const res = await call(t.server.url, 'POST', '/api/admin/neon/query', t.token, { query: text, timeoutMs: 5_000 });
      expect(res.status, text).not.toBe(500);
      expect(res.text, text).not.toContain(MARKER);
      expect(res.text, text).not.toMatch(/root:[^:]*:0:0:/);
      for (const secret of t.secrets) expect(res.text, text).not.toContain(secret);
      if (res.status === 200) answered.push(text);
    }
    expect(await t.fingerprint()).toBe(before);
    expect(readdirSync(dir).filter((f) => f.startsWith('drop'))).toEqual([]);
    for (const suffix of ['-w', '-lo', '-copy', '-attach.db', '-vacuum.db'])
      expect(existsSync(`${DROP}${suffix}`)).toBe(false);
    // The route still answers honest queries afterwards.
    const honest = await call(t.server.url, 'POST', '/api/admin/neon/query', t.token, {
      query: 'select email, password_hash from users order by email',
    });
    expect(honest.status, honest.text).toBe(200);
    expect(honest.json.rows).toEqual([
      ['ed@example.org', '[redacted]'],
      ['root@example.org', '[redacted]'],
    ]);
    // What did answer 200 is only the harmless part (e.g. `select 1` of a union that was refused whole).
    expect(answered.length).toBeLessThan(t.texts.length / 2);
  }, 600_000);

  test('an editor (admin:write) is refused the route; answers are capped in rows and bytes', async (ctx) => {
    if (!targets.has(engine)) return ctx.skip(POSTGRES_SKIP_REASON);
    const t = target();
    const refused = await call(t.server.url, 'POST', '/api/admin/neon/query', t.editor, { query: 'select 1' });
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toMatch(/every permission/);
    const wide = await call(t.server.url, 'POST', '/api/admin/neon/query', t.token, {
      query: `with recursive n(i) as (select 1 union all select i + 1 from n where i < 5000)
        select i, '${'x'.repeat(500)}' as pad from n`,
      maxRows: 1000,
      maxBytes: 16_384,
    });
    expect(wide.status, wide.text).toBe(200);
    expect(wide.json.truncated).toBe(true);
    expect(wide.text.length).toBeLessThan(16_384 + 2_048);
    const rows = await call(t.server.url, 'POST', '/api/admin/neon/query', t.token, {
      query: 'with recursive n(i) as (select 1 union all select i + 1 from n where i < 5000) select i from n',
      maxRows: 1000,
    });
    expect(rows.json).toMatchObject({ rowCount: 1000, truncated: true });
  }, 120_000);
});
