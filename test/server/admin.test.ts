import { describe, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { issueApiKey } from '../../src/server/auth/identity.js';
import type { User } from '../../src/server/store/accounts.js';

const now = Date.parse('2026-07-01T00:00:00Z');
const store = await openStore(':memory:');
const app = createApp({
  store,
  version: '1',
  now: () => now,
  startedAt: now - 5_000,
  makeReader: () => {
    throw new Error('unused');
  },
});
const password = { hash: 'h', salt: 's', iterations: 1 };
const at = new Date(now).toISOString();
const make = async (email: string, role: 'admin' | 'user', tier: string, roles: string[] = []) => {
  const user = await store.createUser({ email, role, tier, password });
  for (const r of roles) await store.assignRole(user.id, r, 'test', at);
  return user;
};

const superAdmin = await make('super@example.org', 'admin', 'admin', ['super-admin']);
const viewer = await make('viewer@example.org', 'admin', 'admin', ['viewer']);
const bare = await make('bare@example.org', 'admin', 'admin');
const free = await make('free@example.org', 'user', 'free');
const pro = await make('pro@example.org', 'user', 'pro');
const token = async (u: User) => (await startSession(store, u, now)).token;
const keyWithout = (await issueApiKey(store, superAdmin, { name: 'no admin scope', scopes: ['compile'] }, now)).text;
const keyWith = (await issueApiKey(store, superAdmin, { name: 'admin scope', scopes: ['admin'] }, now)).text;
const disabled = await make('disabled@example.org', 'admin', 'admin', ['super-admin']);
await store.updateUser(disabled.id, { apiDisabled: true }, at);

const get = (path: string, bearer?: string) =>
  app.request(path, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

const cases: [string, string | undefined, number, RegExp?][] = [
  ['anonymous', undefined, 401],
  ['free user', await token(free), 403, /Administrators only/],
  ['pro user', await token(pro), 403, /Administrators only/],
  ['admin without a role', await token(bare), 403, /Missing permission/],
  ['admin with viewer', await token(viewer), 200],
  ['admin with super-admin', await token(superAdmin), 200],
  ['key without the admin scope', keyWithout, 403, /^API key missing required scope: admin$/],
  ['key with the admin scope', keyWith, 200],
  ['api_disabled admin', await token(disabled), 403, /API access is disabled/],
  ['unknown bearer', 'flc_nope', 401],
];

describe('admin routes', () => {
  test.each(cases)(
    '/api/metrics/prometheus and /api/admin/auth/config: %s -> %i',
    async (_who, bearer, status, message) => {
      for (const path of ['/api/metrics/prometheus', '/api/admin/auth/config']) {
        const res = await get(path, bearer);
        expect(res.status).toBe(status);
        if (message) expect((await res.json()).detail).toMatch(message);
      }
    },
  );

  test('the Prometheus text format', async () => {
    await get('/api/version');
    const res = await get('/api/metrics/prometheus', await token(superAdmin));
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('# TYPE flc_requests_total counter');
    expect(text).toMatch(/^flc_requests_total\{route="GET \/api\/version"\} \d+$/m);
    expect(text).toMatch(/^flc_uptime_seconds 5$/m);
  });

  test('auth config says how authentication is set up, without secrets', async () => {
    const body = await (await get('/api/admin/auth/config', await token(viewer))).json();
    expect(body).toMatchObject({
      success: true,
      password: { algorithm: 'PBKDF2-SHA256', iterations: 600000 },
      apiKeys: { prefix: 'flc_' },
      store: { engine: 'sqlite', location: 'SQLite :memory:' },
    });
    expect(body.tiers).toEqual([
      { name: 'anonymous', rateLimit: 10 },
      { name: 'free', rateLimit: 60 },
      { name: 'pro', rateLimit: 300 },
      { name: 'admin', rateLimit: 0 },
    ]);
  });

  test('my-permissions: what the assigned roles grant, for any administrator', async () => {
    const perms = async (bearer: string) =>
      (await (await get('/admin/system/my-permissions', bearer)).json()).permissions;
    expect(await perms(await token(viewer))).toEqual([
      'admin:read',
      'audit:read',
      'config:read',
      'flags:read',
      'metrics:read',
      'users:read',
    ]);
    expect(await perms(await token(bare))).toEqual([]);
    expect(await perms(keyWith)).toContain('users:manage');
    expect((await get('/admin/system/my-permissions', await token(pro))).status).toBe(403);
  });
});
