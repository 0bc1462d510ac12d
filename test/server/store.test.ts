import { afterEach, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore, listMigrations } from '../../src/server/store/sqlite-store.js';
import { createApp } from '../../src/server/app.js';
import { SafeSourceReader } from '../../src/node/safe-reader.js';

const dirs: string[] = [];
const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), 'flc-store-'));
  dirs.push(dir);
  return join(dir, 'nested', 'flc.db');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('SqliteStore', () => {
  test('creates, migrates once, uses WAL and keeps data across reopening', () => {
    const file = tempDb();
    const first = new SqliteStore(file);
    expect(first.migrations()).toEqual(listMigrations().map((m) => m.id));
    first.recordDeployment({ version: '1.0.0', nodeVersion: 'v20', startedAt: '2026-01-01T00:00:00.000Z' });
    first.close();
    const second = new SqliteStore(file);
    second.recordDeployment({ version: '1.1.0', nodeVersion: 'v20', startedAt: '2026-01-02T00:00:00.000Z' });
    expect(second.migrations()).toEqual(listMigrations().map((m) => m.id));
    expect(existsSync(`${file}-wal`)).toBe(true);
    expect(second.deployments(10).map((d) => d.version)).toEqual(['1.1.0', '1.0.0']);
    expect(second.deploymentStats()).toEqual({
      total: 2,
      versions: [
        { version: '1.1.0', count: 1, firstStartedAt: '2026-01-02T00:00:00.000Z', lastStartedAt: '2026-01-02T00:00:00.000Z' },
        { version: '1.0.0', count: 1, firstStartedAt: '2026-01-01T00:00:00.000Z', lastStartedAt: '2026-01-01T00:00:00.000Z' },
      ],
    });
    expect(Object.keys(second.deployments(1)[0])).toEqual(['id', 'version', 'nodeVersion', 'startedAt']);
    second.close();
  });

  test('tiers, scopes and roles are seeded as the specification describes', () => {
    const store = new SqliteStore(':memory:');
    expect(store.tiers().map((t) => [t.name, t.orderRank, t.rateLimit])).toEqual([
      ['anonymous', 0, 10],
      ['free', 1, 60],
      ['pro', 2, 300],
      ['admin', 3, 0],
    ]);
    const roles = Object.fromEntries(store.roles().map((r) => [r.name, r.permissions]));
    expect(Object.keys(roles)).toEqual(['viewer', 'editor', 'super-admin']);
    expect(roles.viewer).toEqual(['admin:read', 'audit:read', 'metrics:read', 'config:read', 'users:read', 'flags:read']);
    expect(roles['super-admin']).toEqual(expect.arrayContaining(['roles:assign', 'users:manage', 'admin:write']));
    store.close();
  });

  test('role assignments are idempotent and die with their user', () => {
    const store = new SqliteStore(':memory:');
    const user = store.createUser({ email: 'a@example.org', role: 'admin', tier: 'admin', password: { hash: 'h', salt: 's', iterations: 1 } });
    store.assignRole(user.id, 'super-admin', 'test', '2026-01-01T00:00:00Z');
    store.assignRole(user.id, 'super-admin', 'test', '2026-01-01T00:00:00Z');
    expect(store.rolesOf(user.id, '2026-01-02T00:00:00Z')).toEqual(['super-admin']);
    expect(() => store.assignRole(user.id, 'no-such-role', 'test', 'x')).toThrow();
    store.removeUser('a@example.org');
    expect(store.rolesOf(user.id, '2026-01-02T00:00:00Z')).toEqual([]);
    store.close();
  });

  test('health checks and the smoke test', () => {
    const store = new SqliteStore(':memory:');
    expect(store.latestHealth()).toBeNull();
    store.recordHealth({ status: 'ok', version: '1', checkedAt: 'a' });
    store.recordHealth({ status: 'ok', version: '1', checkedAt: 'b' });
    expect(store.latestHealth()).toEqual({ status: 'ok', version: '1', checkedAt: 'b' });
    expect(() => store.smoke('2026-01-01T00:00:00.000Z')).not.toThrow();
    store.close();
  });
});

describe('store routes', () => {
  const store = new SqliteStore(':memory:');
  store.recordDeployment({ version: '2.0.0', nodeVersion: 'v20', startedAt: '2026-03-01T00:00:00.000Z' });
  const app = createApp({
    store,
    version: '2.0.0',
    now: () => Date.parse('2026-03-01T00:01:00Z'),
    startedAt: Date.parse('2026-03-01T00:00:00Z'),
    makeReader: () => new SafeSourceReader({ allowPrivate: false, timeoutMs: 1000, retries: 0, maxBytes: 1024, userAgent: 't' }),
  });
  const get = async (path: string) => (await app.request(path)).json();

  test('deployments and their stats', async () => {
    expect(await get('/api/deployments')).toMatchObject({ success: true, deployments: [{ version: '2.0.0', startedAt: '2026-03-01T00:00:00.000Z' }] });
    expect(await get('/api/deployments/stats')).toMatchObject({ success: true, currentVersion: '2.0.0', total: 1 });
    expect((await app.request('/api/deployments?limit=0')).status).toBe(422);
  });

  test('health/latest follows /api/health; db-smoke works', async () => {
    expect(await get('/api/health/latest')).toEqual({ success: true, check: null });
    await app.request('/api/health');
    expect(await get('/api/health/latest')).toEqual({ success: true, check: { status: 'ok', version: '2.0.0', checkedAt: '2026-03-01T00:01:00.000Z' } });
    expect(await get('/api/health/db-smoke')).toMatchObject({ success: true, ok: true });
  });

  test('db-smoke is 503 when the store fails', async () => {
    const broken = new SqliteStore(':memory:');
    const brokenApp = createApp({ store: broken, version: '1', now: () => 0, startedAt: 0, makeReader: () => new SafeSourceReader({ allowPrivate: false, timeoutMs: 1, retries: 0, maxBytes: 1, userAgent: 't' }) });
    broken.close();
    const res = await brokenApp.request('/api/health/db-smoke');
    expect(res.status).toBe(503);
    expect((await res.json()).detail).toMatch(/^Store check failed/);
  });

  test('metrics count requests by route and status', async () => {
    await app.request('/api/version');
    await app.request('/api/nope');
    const metrics = await get('/api/metrics');
    expect(metrics.requests.byRoute['GET /api/version']).toBeGreaterThanOrEqual(1);
    expect(metrics.requests.byStatus['404']).toBeGreaterThanOrEqual(1);
    expect(metrics.uptimeSeconds).toBe(60);
  });
});
