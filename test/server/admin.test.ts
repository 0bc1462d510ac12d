import { describe, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { SqliteStore } from '../../src/server/store/sqlite-store.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { issueApiKey } from '../../src/server/auth/identity.js';

const now = Date.parse('2026-07-01T00:00:00Z');
const store = new SqliteStore(':memory:');
const app = createApp({ store, version: '1', now: () => now, startedAt: now - 5_000, makeReader: () => { throw new Error('unused'); } });
const password = { hash: 'h', salt: 's', iterations: 1 };
const at = new Date(now).toISOString();
const make = (email: string, role: 'admin' | 'user', tier: string, roles: string[] = []) => {
  const user = store.createUser({ email, role, tier, password });
  for (const r of roles) store.assignRole(user.id, r, 'test', at);
  return user;
};

const superAdmin = make('super@example.org', 'admin', 'admin', ['super-admin']);
const viewer = make('viewer@example.org', 'admin', 'admin', ['viewer']);
const bare = make('bare@example.org', 'admin', 'admin');
const free = make('free@example.org', 'user', 'free');
const pro = make('pro@example.org', 'user', 'pro');
const token = (u: typeof superAdmin) => startSession(store, u, now).token;
const keyWithout = issueApiKey(store, superAdmin, { name: 'no admin scope', scopes: ['compile'] }, now).text;
const keyWith = issueApiKey(store, superAdmin, { name: 'admin scope', scopes: ['admin'] }, now).text;
const disabled = make('disabled@example.org', 'admin', 'admin', ['super-admin']);
store['db'].prepare('UPDATE users SET api_disabled = 1 WHERE id = ?').run(disabled.id);

const get = (path: string, bearer?: string) => app.request(path, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

describe('admin routes', () => {
  const cases: [string, string | undefined, number, RegExp?][] = [
    ['anonymous', undefined, 401],
    ['free user', token(free), 403, /Administrators only/],
    ['pro user', token(pro), 403, /Administrators only/],
    ['admin without a role', token(bare), 403, /Missing permission/],
    ['admin with viewer', token(viewer), 200],
    ['admin with super-admin', token(superAdmin), 200],
    ['key without the admin scope', keyWithout, 403, /^API key missing required scope: admin$/],
    ['key with the admin scope', keyWith, 200],
    ['api_disabled admin', token(disabled), 403, /API access is disabled/],
    ['unknown bearer', 'flc_nope', 401],
  ];

  test.each(cases)('/api/metrics/prometheus and /api/admin/auth/config: %s -> %i', async (_who, bearer, status, message) => {
    for (const path of ['/api/metrics/prometheus', '/api/admin/auth/config']) {
      const res = await get(path, bearer);
      expect(res.status).toBe(status);
      if (message) expect((await res.json()).detail).toMatch(message);
    }
  });

  test('the Prometheus text format', async () => {
    await get('/api/version');
    const res = await get('/api/metrics/prometheus', token(superAdmin));
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('# TYPE flc_requests_total counter');
    expect(text).toMatch(/^flc_requests_total\{route="GET \/api\/version"\} \d+$/m);
    expect(text).toMatch(/^flc_uptime_seconds 5$/m);
  });

  test('auth config says how authentication is set up, without secrets', async () => {
    const body = await (await get('/api/admin/auth/config', token(viewer))).json();
    expect(body).toMatchObject({ success: true, password: { algorithm: 'PBKDF2-SHA256', iterations: 600000 }, apiKeys: { prefix: 'flc_' } });
    expect(body.tiers).toEqual([{ name: 'anonymous', rateLimit: 10 }, { name: 'free', rateLimit: 60 }, { name: 'pro', rateLimit: 300 }, { name: 'admin', rateLimit: 0 }]);
  });

  test('my-permissions: what the assigned roles grant, for any administrator', async () => {
    const perms = async (bearer: string) => (await (await get('/admin/system/my-permissions', bearer)).json()).permissions;
    expect(await perms(token(viewer))).toEqual(['admin:read', 'audit:read', 'config:read', 'flags:read', 'metrics:read', 'users:read']);
    expect(await perms(token(bare))).toEqual([]);
    expect(await perms(keyWith)).toContain('users:manage');
    expect((await get('/admin/system/my-permissions', token(pro))).status).toBe(403);
  });
});
