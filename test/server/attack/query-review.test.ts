import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { refuseStatement } from '../../../src/server/admin/sql-guard.js';
import { prepareQueryConnection, queryRoleName } from '../../../src/server/admin/postgres-query-role.js';
import { postgresReadOnlyQuery, type StopBackend } from '../../../src/server/admin/postgres-query.js';
import { openStore } from '../../../src/server/store/open.js';
import { freshPostgresUrl, POSTGRES_SKIP_REASON, POSTGRES_URL } from '../../support/postgres.js';
import { type ServeProcess, startServe } from '../../support/serve-process.js';
import { call, rootAndEditor } from '../../support/serve-accounts.js';

/**
 * The threat review of the query route: the parser and the database read strings and comments
 * the same way (a `'\'` literal, nested comments, `#`); the PostgreSQL query role reaches no
 * other role by membership and its time is kept from outside the query; queries running at once
 * are capped.
 */

const dir = mkdtempSync(join(tmpdir(), 'flc-query-review-'));
const running: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the parser check reads the text as the database does', () => {
  // Each hides a call in what node-sql-parser alone took for a string or a comment.
  const hidden = {
    sqlite: [
      String.raw`select '\' as a, load_extension('x') as b --'`,
      String.raw`select '\' as a, readfile('/etc/passwd') as b --'`,
      'select 1 #x\n, readfile(1)',
      'select [a\\] as b from users',
    ],
    postgres: [
      String.raw`select '\' as a, set_config($$statement_timeout$$, $$0$$, false) as b --'`,
      String.raw`select '\' as a, pg_read_file($$/etc/passwd$$) as b --'`,
      "select 1 /* /* */ '  */ , set_config('a', 'b', false) --'",
      "select E'\\'' as a, pg_sleep(1) as b --'",
      'select 1 as "a\\" , pg_sleep(1) as "b"',
    ],
  } as const;
  test.each([
    ...hidden.sqlite.map((t) => ['sqlite', t] as const),
    ...hidden.postgres.map((t) => ['postgres', t] as const),
  ])('%s: %s is refused', (engine, text) => {
    expect(refuseStatement(text, engine)).not.toBeNull();
  });

  test.each(['sqlite', 'postgres'] as const)('%s: a deep expression is checked, not a stack overflow', (engine) => {
    // The tree's walk keeps its own stack: 30,000 terms once threw RangeError, a 500.
    expect(refuseStatement(`select ${'1+'.repeat(30_000)}1 as n`, engine)).toBeNull();
    expect(refuseStatement(`select ${'1+'.repeat(30_000)}pg_sleep(1) as n`, engine)).toMatch(/pg_sleep/);
  });

  test.each(['sqlite', 'postgres'] as const)('%s: honest texts with quotes and comments still pass', (engine) => {
    for (const text of [
      String.raw`select '\' as backslash from users`,
      "select 'it''s' as a, \"email\" from users -- a comment\n where email like 'a%'",
      'select /* a comment */ count(*) from users',
    ])
      expect(refuseStatement(text, engine), text).toBeNull();
  });
});

describe('a real flc serve, each store', () => {
  const servers = new Map<string, { server: ServeProcess; token: string }>();
  beforeAll(async () => {
    const file = join(dir, 'flc.db');
    const sqlite = await startServe(['--db', file]);
    running.push(sqlite);
    servers.set('sqlite', { server: sqlite, token: (await rootAndEditor(sqlite, file)).root });
    if (!POSTGRES_URL) return;
    const url = await freshPostgresUrl();
    const server = await startServe(['--db', url]);
    running.push(server);
    servers.set('postgres', { server, token: (await rootAndEditor(server, url)).root });
  }, 120_000);

  test.for(['sqlite', 'postgres'])(
    "%s: a '\\' literal is a backslash, and what follows it is code",
    async (engine, ctx) => {
      const s = servers.get(engine);
      if (!s) return ctx.skip(POSTGRES_SKIP_REASON);
      const query = (q: string) => call(s.server.url, 'POST', '/api/admin/neon/query', s.token, { query: q });
      const honest = await query(String.raw`select '\' as a`);
      expect(honest.status, honest.text).toBe(200);
      expect(honest.json.rows).toEqual([['\\']]);
      const hidden =
        engine === 'sqlite'
          ? String.raw`select '\' as a, sqlite_compileoption_get(0) as b --'`
          : String.raw`select '\' as a, set_config($$statement_timeout$$, $$1234$$, false) as b --'`;
      const refused = await query(hidden);
      expect(refused.status, refused.text).toBe(422);
      expect(refused.json.detail).toMatch(/not allowed|not accepted/);
    },
  );

  test.for(['sqlite', 'postgres'])(
    '%s: queries running at once are capped',
    { timeout: 60_000 },
    async (engine, ctx) => {
      const s = servers.get(engine);
      if (!s) return ctx.skip(POSTGRES_SKIP_REASON);
      const endless =
        engine === 'sqlite'
          ? 'with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n'
          : 'with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n';
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          call(s.server.url, 'POST', '/api/admin/neon/query', s.token, { query: endless, timeoutMs: 2_000 }),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([408, 408, 503, 503, 503]);
      expect(answers.find((a) => a.status === 503)?.json.detail).toMatch(/running already/);
      // The cap frees its places: the next query runs.
      const next = await call(s.server.url, 'POST', '/api/admin/neon/query', s.token, { query: 'select 1 as one' });
      expect(next.status, next.text).toBe(200);
    },
  );

  test('postgres: format with a width is refused (a 100 MB value out of a short text)', async (ctx) => {
    const s = servers.get('postgres');
    if (!s) return ctx.skip(POSTGRES_SKIP_REASON);
    const res = await call(s.server.url, 'POST', '/api/admin/neon/query', s.token, {
      query: "select format('%100000000s', 'x') as wide",
    });
    expect(res.status, res.text).toBe(422);
    expect(res.json.detail).toMatch(/format is not allowed/);
  });
});

describe('PostgreSQL: the query role reaches no other role, and its time is kept from outside', () => {
  let url: string;
  let main: pg.Pool;
  let admin: pg.Client;
  const tag = randomBytes(4).toString('hex');
  const boss = `flc_t_boss_${tag}`;
  const adopted = `flc_t_adopt_${tag}`;
  const closing: (() => Promise<unknown>)[] = [];
  const LIMITS = { timeoutMs: 1_000, maxRows: 100, maxBytes: 64 * 1024 };

  beforeAll(async () => {
    if (!POSTGRES_URL) return;
    url = await freshPostgresUrl();
    await (await openStore(url)).close();
    main = new pg.Pool({ connectionString: url, max: 2 });
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create role ${boss} superuser nologin`);
    await admin.query(`create role ${adopted} login password 'pw' nosuperuser noinherit`);
    await admin.query(`grant ${boss} to ${adopted}`);
  });
  afterAll(async () => {
    for (const c of closing) await c();
    if (!admin) return;
    await admin.query(`drop owned by ${adopted}`);
    await admin.query(`drop role if exists ${adopted}`);
    await admin.query(`drop role if exists ${boss}`);
    await admin.end();
    await main.end();
  });

  const asAdopted = () => {
    const u = new URL(url);
    u.username = adopted;
    u.password = 'pw';
    return u.toString();
  };

  test('an adopted role that is a member of a superuser role is refused, naming it', async (ctx) => {
    if (!POSTGRES_URL) return ctx.skip(POSTGRES_SKIP_REASON);
    const q = await prepareQueryConnection(main, url, asAdopted());
    closing.push(() => q.pool?.end() ?? Promise.resolve());
    expect(q.pool).toBeNull();
    expect(q.refusal).toMatch(new RegExp(`member of ${boss}, which is a superuser`));
  });

  test('flc serve --query-db with that role says why the query route is off', async (ctx) => {
    if (!POSTGRES_URL) return ctx.skip(POSTGRES_SKIP_REASON);
    const server = await startServe(['--db', url, '--query-db', asAdopted()]);
    running.push(server);
    expect(server.log()).toMatch(new RegExp(`query route off: .*member of ${boss}, which is a superuser`));
    const { root } = await rootAndEditor(server, url);
    const res = await call(server.url, 'POST', '/api/admin/neon/query', root, { query: 'select 1' });
    expect(res.status).toBe(503);
    expect(res.json.detail).toMatch(boss);
    await server.stop();
  }, 60_000);

  test('a membership granted to the provisioned role is revoked at start: SET ROLE reaches nothing', async (ctx) => {
    if (!POSTGRES_URL) return ctx.skip(POSTGRES_SKIP_REASON);
    const first = await prepareQueryConnection(main, url, undefined);
    await first.pool?.end();
    const role = first.role as string;
    const schema = new URL(url).searchParams.get('options')?.replace('-c search_path=', '') ?? '';
    expect(role).toBe(queryRoleName(new URL(url).pathname.slice(1), schema));
    await admin.query(`grant ${boss} to ${role}`);
    const q = await prepareQueryConnection(main, url, undefined);
    closing.push(() => q.pool?.end() ?? Promise.resolve());
    expect(q.refusal).toBeNull();
    const members = await admin.query(
      'select count(*)::int as n from pg_auth_members where member = (select oid from pg_roles where rolname = $1)',
      [role],
    );
    expect(members.rows[0].n).toBe(0);
    const escalate = postgresReadOnlyQuery(
      q.pool as pg.Pool,
      `select set_config('role', '${boss}', false) as r, current_setting('is_superuser') as s`,
      LIMITS,
      q.stop as StopBackend,
    );
    await expect(escalate).rejects.toThrow(/permission denied to set role/);
  });

  test('query roles of stores that are gone are dropped at a provisioning start; live ones stay', async (ctx) => {
    if (!POSTGRES_URL) return ctx.skip(POSTGRES_SKIP_REASON);
    // A store whose schema was dropped after its server made a role for it.
    const gone = await freshPostgresUrl();
    await (await openStore(gone)).close();
    const goneMain = new pg.Pool({ connectionString: gone, max: 1 });
    const made = await prepareQueryConnection(goneMain, gone, undefined);
    await made.pool?.end();
    await goneMain.end();
    const goneSchema = new URL(gone).searchParams.get('options')?.replace('-c search_path=', '') ?? '';
    await admin.query(`drop schema ${goneSchema} cascade`);
    // A role made for a database that no longer exists.
    const orphan = queryRoleName(`flc_gone_db_${tag}`, 'public');
    await admin.query(`create role ${orphan} nologin`);
    await admin.query(`comment on role ${orphan} is 'flc query route of database flc_gone_db_${tag}, schema public'`);
    // A role of the same look that this server did not make (its name is not the hash) is left.
    const foreign = `flc_query_${tag}`;
    await admin.query(`create role ${foreign} nologin`);
    await admin.query(`comment on role ${foreign} is 'flc query route of database flc_gone_db_${tag}, schema x'`);
    closing.push(() => admin.query(`drop role if exists ${foreign}`));
    const live = await prepareQueryConnection(main, url, undefined);
    closing.push(() => live.pool?.end() ?? Promise.resolve());
    const roles = async (names: string[]) =>
      (await admin.query('select rolname from pg_roles where rolname = any($1) order by rolname', [names])).rows.map(
        (r) => r.rolname,
      );
    expect(await roles([made.role as string, orphan, foreign, live.role as string])).toEqual(
      [foreign, live.role as string].sort(),
    );
    const schemas = await admin.query('select 1 from pg_namespace where nspname = $1', [made.role]);
    expect(schemas.rowCount).toBe(0);
  });

  test('a query that lifts its own statement_timeout is still ended, and its backend with it', async (ctx) => {
    if (!POSTGRES_URL) return ctx.skip(POSTGRES_SKIP_REASON);
    const q = await prepareQueryConnection(main, url, undefined);
    closing.push(() => q.pool?.end() ?? Promise.resolve());
    // The first fetch lifts the timeout for the statements after it; the second sleeps.
    const text = `select set_config('statement_timeout', '0', false) as t,
      pg_sleep(case when n > 16 then 5 else 0 end) as s from generate_series(1, 40) n`;
    const started = Date.now();
    const answer = postgresReadOnlyQuery(q.pool as pg.Pool, text, LIMITS, q.stop as StopBackend);
    await expect(answer).rejects.toMatchObject({ status: 408 });
    expect(Date.now() - started).toBeLessThan(LIMITS.timeoutMs + 3_000);
    // No backend of the role is still running the query.
    let active = 1;
    for (let i = 0; i < 20 && active > 0; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      active = (
        await admin.query(
          `select count(*)::int as n from pg_stat_activity
            where usename = $1 and query like '%pg_sleep%' and state = 'active'`,
          [q.role],
        )
      ).rows[0].n;
    }
    expect(active).toBe(0);
    // Settings a query changed do not outlive it: the next query has the role's own.
    const next = await postgresReadOnlyQuery(
      q.pool as pg.Pool,
      "select current_setting('statement_timeout') as t",
      LIMITS,
      q.stop as StopBackend,
    );
    expect(next.rows[0][0]).not.toBe('0');
  }, 30_000);
});
