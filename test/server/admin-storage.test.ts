import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import pg from 'pg';
import { openStore } from '../../src/server/store/open.js';
import { sqliteReadOnlyQuery } from '../../src/server/admin/sqlite-query.js';
import { postgresReadOnlyQuery } from '../../src/server/admin/postgres-query.js';
import { createApp } from '../../src/server/app.js';
import type { Store } from '../../src/server/store/store.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { ENGINES } from '../support/stores.js';

const now = Date.parse('2026-06-01T00:00:00Z');
const at = new Date(now).toISOString();
const password = { hash: 'secret-hash', salt: 'secret-salt', iterations: 1 };
const LIMITS = { timeoutMs: 5_000, maxRows: 10, maxBytes: 1024 * 1024 };

/** The admin storage and database views on each engine. */
describe.each(ENGINES)('$engine: admin storage and database views', (engine) => {
  const open: Store[] = [];
  beforeEach((ctx) => {
    if (engine.skip) ctx.skip(engine.skip);
  });
  // Each test's store is closed after it, so the PostgreSQL server's connections are not used up.
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  afterAll(() => engine.cleanup());

  const setUp = async () => {
    const location = await engine.location();
    const store = await openStore(location);
    open.push(store);
    const app = createApp({
      store,
      version: '1',
      now: () => now,
      startedAt: now,
      makeReader: () => {
        throw new Error('unused');
      },
    });
    const root = await store.createUser({ email: 'root@example.org', role: 'admin', tier: 'admin', password });
    await store.assignRole(root.id, 'super-admin', 'test', at);
    const viewer = await store.createUser({ email: 'viewer@example.org', role: 'admin', tier: 'admin', password });
    await store.assignRole(viewer.id, 'viewer', 'test', at);
    const ROOT = (await startSession(store, root, now)).token;
    const VIEWER = (await startSession(store, viewer, now)).token;
    const call = (method: string, path: string, bearer = ROOT, body?: unknown) =>
      app.request(path, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    const query = async (q: string, extra: Record<string, unknown> = {}) =>
      call('POST', '/api/admin/neon/query', ROOT, { query: q, ...extra });
    return { store, app, call, query, ROOT, VIEWER, location };
  };

  test('tables with row counts; a page of one with secrets redacted; 404 for no such table', async () => {
    const { call } = await setUp();
    const tables = await (await call('GET', '/api/admin/storage/tables')).json();
    expect(tables.engine).toBe(engine.engine);
    const names = tables.tables.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['users', 'sessions', 'flash_messages', 'error_events', 'rule_sets']));
    expect(tables.tables.find((t: { name: string }) => t.name === 'users').rows).toBe(2);
    const page = await (await call('GET', '/api/admin/storage/tables/users?limit=1')).json();
    expect(page).toMatchObject({ table: 'users', total: 2, limit: 1, offset: 0 });
    expect(page.columns).toContain('password_hash');
    expect(page.rows[0].password_hash).toBe('[redacted]');
    expect(page.rows[0].password_salt).toBe('[redacted]');
    expect(JSON.stringify(page)).not.toContain('secret-hash');
    expect((await call('GET', '/api/admin/storage/tables/sessions')).status).toBe(200);
    expect((await call('GET', '/api/admin/storage/tables/no_such_table')).status).toBe(404);
    expect((await call('GET', '/api/admin/storage/tables/users;drop')).status).toBe(404);
    expect((await call('GET', '/api/admin/storage/tables/users?limit=0')).status).toBe(422);
  });

  test('maintenance: vacuum, checkpoint and prune of expired sessions and flash entries', async () => {
    const { store, call } = await setUp();
    const vacuum = await (await call('POST', '/api/admin/storage/vacuum')).json();
    expect(vacuum.actions.length).toBeGreaterThan(0);
    const checkpoint = await (await call('POST', '/api/admin/storage/checkpoint')).json();
    expect(checkpoint.performed).toBe(engine.engine === 'sqlite');
    const u = await store.createUser({ email: 'old@example.org', role: 'user', tier: 'free', password });
    await store.createSession('expired-hash', {
      userId: u.id,
      createdAt: '2025-01-01T00:00:00.000Z',
      expiresAt: '2025-02-01T00:00:00.000Z',
    });
    await store.putFlash({
      token: 'f',
      code: null,
      message: 'm',
      type: 'info',
      createdAt: '2025-01-01T00:00:00.000Z',
      expiresAt: '2025-01-01T00:01:00.000Z',
    });
    const event = { source: 'frontend', severity: 'low' as const, message: 'm', stack: null, context: null, url: null };
    const rest = { userAgent: null, sessionId: null };
    await store.addErrorEvent({ ...event, ...rest, id: 'old', createdAt: '2026-04-01T00:00:00.000Z' });
    await store.addErrorEvent({ ...event, ...rest, id: 'recent', createdAt: '2026-05-31T00:00:00.000Z' });
    const pruned = await (await call('POST', '/api/admin/storage/prune')).json();
    expect(pruned.pruned).toEqual({ sessions: 1, flash: 1, results: 0, errorEvents: 1 });
    expect((await store.errorEvents(10, 0)).events.map((e) => e.id)).toEqual(['recent']);
    expect((await (await call('POST', '/api/admin/storage/prune')).json()).pruned).toEqual({
      sessions: 0,
      flash: 0,
      results: 0,
      errorEvents: 0,
    });
  });

  test('project and branches describe the local database, never a password', async () => {
    const { store, call } = await setUp();
    const { project } = await (await call('GET', '/api/admin/neon/project')).json();
    expect(project.engine).toBe(engine.engine);
    expect(project.version).toMatch(engine.engine === 'sqlite' ? /^SQLite 3\./ : /^PostgreSQL \d+/);
    expect(project.location).toBe(store.description.replace(/^(SQLite|PostgreSQL) /, ''));
    expect(project.location).not.toMatch(/:\/\/[^/@]*:[^/@*]+@/);
    expect(project.sizeBytes).toBeGreaterThan(0);
    expect(project.tables).toBeGreaterThan(10);
    const { branches } = await (await call('GET', '/api/admin/neon/branches')).json();
    expect(branches).toEqual([expect.objectContaining({ id: 'main', kind: 'database', primary: true, current: true })]);
  });

  test('a read-only query answers rows', async () => {
    const { query } = await setUp();
    const res = await query("select email, role from users where email like 'root%'");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      columns: ['email', 'role'],
      rows: [['root@example.org', 'admin']],
      rowCount: 1,
      truncated: false,
    });
    const capped = await (await query('select email from users', { maxRows: 1 })).json();
    expect(capped).toMatchObject({ rowCount: 1, truncated: true });
  });

  const refused = [
    "insert into users (id, email) values ('x', 'x')",
    "update users set role = 'admin'",
    'delete from users',
    'drop table users',
    'create table t (x int)',
    "attach database '/tmp/flc-attack.db' as a",
    'detach database main',
    'pragma query_only = 0',
    'pragma journal_mode = delete',
    'pragma wal_checkpoint',
    "vacuum into '/tmp/flc-attack.db'",
    'select 1; delete from users',
    'select 1; select 2',
    'with x as (delete from users returning id) select * from x',
    "copy users to '/tmp/flc-attack.csv'",
    "select set_config('statement_timeout', '0', false)",
    '',
  ];
  test.each(refused)('refused, and nothing changes: %s', async (q) => {
    const { query, store } = await setUp();
    const res = await query(q || ' ');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect((await store.listUsers()).length).toBe(2);
  });

  test('the database refuses writes the text check would have let through', async () => {
    const { store, location } = await setUp();
    const writes = [
      "insert into users (id, email) values ('x', 'x')",
      'delete from users',
      'select 1; delete from users',
    ];
    if (engine.engine === 'sqlite') {
      for (const q of writes.slice(0, 2))
        await expect(sqliteReadOnlyQuery(location, q, LIMITS)).rejects.toThrow(
          /only reads can run|because it is a view/,
        );
      // A second statement is never run: the connection prepares the first one only.
      expect((await sqliteReadOnlyQuery(location, writes[2], LIMITS)).rows).toEqual([[1]]);
    } else {
      const pool = new pg.Pool({ connectionString: location, max: 1 });
      try {
        for (const q of [...writes, "select nextval(pg_get_serial_sequence('deployments', 'id'))"])
          await expect(postgresReadOnlyQuery(pool, q, LIMITS, async () => undefined)).rejects.toThrow(
            /read-only|multiple commands|syntax error/,
          );
      } finally {
        await pool.end();
      }
    }
    expect((await store.listUsers()).length).toBe(2);
  });

  test('a query past its time is ended (408) while the server goes on answering', async () => {
    const { query, call } = await setUp();
    const slow = 'with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n';
    const pending = query(slow, { timeoutMs: 300 });
    expect((await call('GET', '/api/admin/storage/tables')).status).toBe(200);
    const res = await pending;
    expect(res.status).toBe(408);
    expect((await res.json()).detail).toMatch(/longer than 300 ms/);
  });

  test("views need admin:read, maintenance admin:write, a table's rows and queries every permission", async () => {
    const { call, VIEWER } = await setUp();
    expect((await call('GET', '/api/admin/storage/tables', VIEWER)).status).toBe(200);
    // Rows of users, rule sets and the audit log are what users:read and audit:read guard.
    for (const table of ['users', 'rule_sets', 'audit_log', 'jobs', 'usage_daily'])
      expect((await call('GET', `/api/admin/storage/tables/${table}`, VIEWER)).status).toBe(403);
    expect((await call('GET', '/api/admin/neon/project', VIEWER)).status).toBe(200);
    expect((await call('GET', '/api/admin/agents/sessions', VIEWER)).status).toBe(200);
    for (const path of ['/api/admin/storage/vacuum', '/api/admin/storage/prune', '/api/admin/storage/checkpoint']) {
      const res = await call('POST', path, VIEWER);
      expect(res.status).toBe(403);
      expect((await res.json()).detail).toBe('Missing permission: admin:write');
    }
    expect((await call('POST', '/api/admin/neon/query', VIEWER, { query: 'select 1' })).status).toBe(403);
  });

  test('who is connected (users, their emails and keys) needs users:read, not admin:read alone', async () => {
    const { store, call } = await setUp();
    await store.createConfigRow(
      'roles',
      { role_name: 'reader', display_name: 'Reader', description: '', permissions: ['admin:read'] },
      at,
    );
    const password = { hash: 'h', salt: 's', iterations: 1 };
    const reader = await store.createUser({ email: 'reader@example.org', role: 'admin', tier: 'admin', password });
    await store.assignRole(reader.id, 'reader', 'test', at);
    const token = (await startSession(store, reader, now)).token;
    expect((await call('GET', '/api/admin/storage/tables', token)).status).toBe(200);
    const refused = await call('GET', '/api/admin/agents/sessions', token);
    expect(refused.status).toBe(403);
    expect((await refused.json()).detail).toBe('Missing permission: users:read');
  });
});
