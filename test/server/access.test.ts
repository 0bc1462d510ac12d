import { describe, expect, test, vi } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { issueApiKey } from '../../src/server/auth/identity.js';
import type { User } from '../../src/server/store/accounts.js';
import { sha256 } from '../../src/server/hash.js';

/**
 * The access matrix: every route of the specification's summary (and the local-user routes)
 * against twelve kinds of caller. The expectations are written from the specification's Auth
 * column here, not read from the server's policy table.
 */

// Each request moves the clock (the app's and Date's, which the rate limiter reads) past the
// rate-limit window, so only access decides.
let clock = Date.parse('2026-08-01T00:00:00Z');
vi.useFakeTimers({ toFake: ['Date'] });
function tick(ms: number) {
  clock += ms;
  vi.setSystemTime(clock);
}
vi.setSystemTime(clock);
const store = await openStore(':memory:');
const app = createApp({
  store,
  version: '1',
  now: () => clock,
  startedAt: clock,
  makeReader: () => {
    throw new Error('no compile reaches a source here');
  },
});
const password = { hash: 'h', salt: 's', iterations: 1 };
const make = async (email: string, role: 'admin' | 'user', tier: string, roles: string[] = []) => {
  const user = await store.createUser({ email, role, tier, password });
  for (const r of roles) await store.assignRole(user.id, r, 'test', new Date(clock).toISOString());
  return user;
};
const free = await make('free@example.org', 'user', 'free');
const pro = await make('pro@example.org', 'user', 'pro');
const bare = await make('bare@example.org', 'admin', 'admin');
const viewer = await make('viewer@example.org', 'admin', 'admin', ['viewer']);
const superAdmin = await make('super@example.org', 'admin', 'admin', ['super-admin']);
const banned = await make('banned@example.org', 'user', 'pro');
await store.updateUser(banned.id, { banned: true }, new Date(clock).toISOString());
const disabled = await make('disabled@example.org', 'admin', 'admin', ['super-admin']);
await store.updateUser(disabled.id, { apiDisabled: true }, new Date(clock).toISOString());

const session = async (u: User) => (await startSession(store, u, clock)).token;
const key = async (u: User, scopes: string[]) => (await issueApiKey(store, u, { name: 'k', scopes }, clock)).text;

/** A fresh credential per request (sign-out ends sessions; the clock moves). */
const CALLERS: Record<string, () => Promise<string | undefined>> = {
  anonymous: async () => undefined,
  free: async () => await session(free),
  pro: async () => await session(pro),
  'admin without a role': async () => await session(bare),
  'admin with viewer': async () => await session(viewer),
  'admin with super-admin': async () => await session(superAdmin),
  'key without admin scope': async () => await key(superAdmin, ['compile', 'rules']),
  'key with admin scope': async () => await key(superAdmin, ['compile', 'rules', 'admin']),
  banned: async () => await session(banned),
  api_disabled: async () => await session(disabled),
  'expired session': async () => {
    const token = `flcs_expired${clock}`;
    await store.createSession(sha256(token), {
      userId: pro.id,
      createdAt: new Date(clock - 2_000).toISOString(),
      expiresAt: new Date(clock - 1_000).toISOString(),
    });
    return token;
  },
  'revoked key': async () => {
    const text = await key(pro, ['compile', 'rules']);
    await store.revokeApiKey(pro.id, (await store.apiKeys(pro.id)).at(-1)!.id, new Date(clock).toISOString());
    return text;
  },
};

/** `Own session`: as `Session`, and open to banned and API-disabled accounts (it only takes access away). */
type Auth = 'No' | 'Session' | 'Own session' | 'Free+' | 'Pro+' | 'Admin read' | 'Admin write';

/** The specification's summary (`:id` filled in), plus `/admin/local-users` and usage. */
const ROUTES: [method: string, path: string, auth: Auth][] = [
  ['GET', '/api', 'No'],
  ['GET', '/api/version', 'No'],
  ['GET', '/api/schemas', 'No'],
  ['GET', '/api/turnstile-config', 'No'],
  ['GET', '/api/sentry-config', 'No'],
  ['GET', '/api/openapi.json', 'No'],
  ['GET', '/api/deployments', 'No'],
  ['GET', '/api/deployments/stats', 'No'],
  ['GET', '/api/auth/providers', 'No'],
  ['POST', '/api/auth/sign-up/email', 'No'],
  ['POST', '/api/auth/sign-in/email', 'No'],
  ['POST', '/api/auth/sign-out', 'Own session'],
  ['GET', '/api/auth/get-session', 'No'],
  ['POST', '/api/compile', 'Free+'],
  ['POST', '/api/compile/stream', 'Free+'],
  ['POST', '/api/compile/batch', 'Free+'],
  ['POST', '/api/compile/async', 'Pro+'],
  ['POST', '/api/compile/batch/async', 'Pro+'],
  ['POST', '/api/compile/container', 'Free+'],
  ['POST', '/api/explain', 'Free+'],
  ['POST', '/api/ast/parse', 'Free+'],
  ['POST', '/api/validate', 'Free+'],
  ['POST', '/api/validate-rule', 'Free+'],
  ['GET', '/api/ws/compile', 'Free+'],
  ['GET', '/api/queue/stats', 'Free+'],
  ['GET', '/api/queue/history', 'Free+'],
  ['GET', '/api/queue/results/job-1', 'Free+'],
  ['DELETE', '/api/queue/cancel/job-1', 'Free+'],
  ['GET', '/api/configuration/defaults', 'No'],
  ['POST', '/api/configuration/validate', 'Free+'],
  ['POST', '/api/configuration/resolve', 'Free+'],
  ['GET', '/api/rules', 'Free+'],
  ['GET', '/api/rules/rule-1', 'Free+'],
  ['GET', '/api/health', 'No'],
  ['GET', '/api/health/latest', 'No'],
  ['GET', '/api/health/db-smoke', 'No'],
  ['GET', '/api/metrics', 'No'],
  ['GET', '/api/metrics/prometheus', 'Admin read'],
  ['GET', '/api/container/status', 'No'],
  ['GET', '/api/keys', 'Free+'],
  ['POST', '/api/keys', 'Free+'],
  ['DELETE', '/api/keys/no-such-key', 'Free+'],
  ['POST', '/api/workflow/compile', 'Pro+'],
  ['GET', '/api/workflow/wf-1', 'Pro+'],
  ['GET', '/api/admin/users', 'Admin read'],
  ['GET', '/api/admin/users/no-such-user', 'Admin read'],
  ['PATCH', '/api/admin/users/no-such-user', 'Admin write'],
  ['DELETE', '/api/admin/users/no-such-user', 'Admin write'],
  ['POST', '/api/admin/users/no-such-user/ban', 'Admin write'],
  ['POST', '/api/admin/users/no-such-user/unban', 'Admin write'],
  ['GET', '/api/admin/auth/config', 'Admin read'],
  ['GET', '/api/admin/usage/no-such-user', 'Admin read'],
  ['GET', '/api/admin/storage/tables', 'Admin read'],
  ['POST', '/api/admin/storage/vacuum', 'Admin write'],
  ['GET', '/api/admin/neon/project', 'Admin read'],
  ['GET', '/api/admin/neon/branches', 'Admin read'],
  ['POST', '/api/admin/neon/query', 'Admin write'],
  ['GET', '/api/admin/agents/sessions', 'Admin read'],
  ['POST', '/api/notify', 'No'],
  ['GET', '/api/flash/no-such-token', 'No'],
  ['POST', '/api/log/frontend-error', 'No'],
  ['POST', '/api/ast/walk', 'Free+'],
  ['GET', '/admin/local-users', 'Admin read'],
  ['GET', '/admin/local-users/no-such-user', 'Admin read'],
  ['POST', '/admin/local-users', 'Admin write'],
  ['PATCH', '/admin/local-users/no-such-user', 'Admin write'],
  ['DELETE', '/admin/local-users/no-such-user', 'Admin write'],
  ['GET', '/admin/usage/no-such-user', 'Admin read'],
];

/** What each caller gets on each kind of route: 'ok' (the route answered) or the denial status. */
const EXPECTED: Record<string, Record<Exclude<Auth, 'Own session'>, 'ok' | 401 | 403>> = {
  anonymous: { No: 'ok', Session: 401, 'Free+': 401, 'Pro+': 403, 'Admin read': 401, 'Admin write': 401 },
  free: { No: 'ok', Session: 'ok', 'Free+': 'ok', 'Pro+': 403, 'Admin read': 403, 'Admin write': 403 },
  pro: { No: 'ok', Session: 'ok', 'Free+': 'ok', 'Pro+': 'ok', 'Admin read': 403, 'Admin write': 403 },
  'admin without a role': {
    No: 'ok',
    Session: 'ok',
    'Free+': 'ok',
    'Pro+': 'ok',
    'Admin read': 403,
    'Admin write': 403,
  },
  'admin with viewer': { No: 'ok', Session: 'ok', 'Free+': 'ok', 'Pro+': 'ok', 'Admin read': 'ok', 'Admin write': 403 },
  'admin with super-admin': {
    No: 'ok',
    Session: 'ok',
    'Free+': 'ok',
    'Pro+': 'ok',
    'Admin read': 'ok',
    'Admin write': 'ok',
  },
  'key without admin scope': {
    No: 'ok',
    Session: 403,
    'Free+': 'ok',
    'Pro+': 'ok',
    'Admin read': 403,
    'Admin write': 403,
  },
  'key with admin scope': {
    No: 'ok',
    Session: 403,
    'Free+': 'ok',
    'Pro+': 'ok',
    'Admin read': 'ok',
    'Admin write': 'ok',
  },
  banned: { No: 'ok', Session: 403, 'Free+': 403, 'Pro+': 403, 'Admin read': 403, 'Admin write': 403 },
  api_disabled: { No: 'ok', Session: 403, 'Free+': 403, 'Pro+': 403, 'Admin read': 403, 'Admin write': 403 },
  'expired session': { No: 'ok', Session: 401, 'Free+': 401, 'Pro+': 401, 'Admin read': 401, 'Admin write': 401 },
  'revoked key': { No: 'ok', Session: 401, 'Free+': 401, 'Pro+': 401, 'Admin read': 401, 'Admin write': 401 },
};

async function send(method: string, path: string, token: string | undefined) {
  tick(61_000);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  // Bodies that no route can act on (every one of them answers 4xx to `{}`), so nothing changes.
  const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
  const res = await app.request(path, { method, headers, body });
  return {
    status: res.status,
    detail: res.status === 401 || res.status === 403 ? ((await res.json()) as { detail: string }).detail : '',
  };
}

describe('access matrix', () => {
  test.each(Object.keys(CALLERS))('%s', async (caller) => {
    const wrong: string[] = [];
    for (const [method, path, auth] of ROUTES) {
      const { status, detail } = await send(method, path, await CALLERS[caller]());
      const expected =
        auth === 'Own session'
          ? caller === 'banned' || caller === 'api_disabled'
            ? 'ok'
            : EXPECTED[caller].Session
          : EXPECTED[caller][auth];
      const got = status === 401 || status === 403 ? status : 'ok';
      if (got !== expected || status === 429 || status >= 500)
        wrong.push(`${method} ${path} (${auth}): expected ${expected}, got ${status} ${detail}`);
    }
    expect(wrong).toEqual([]);
  });

  test('the denials say why', async () => {
    const detail = async (method: string, path: string, token?: string) => (await send(method, path, token)).detail;
    expect(await detail('POST', '/api/compile')).toBe('Authentication required');
    expect(await detail('POST', '/api/compile/async')).toBe('This route needs the pro tier or higher');
    expect(await detail('POST', '/api/compile/async', await session(free))).toBe(
      'This route needs the pro tier or higher',
    );
    expect(await detail('GET', '/api/keys', await CALLERS['expired session']())).toBe('Invalid or expired credentials');
    expect(await detail('GET', '/api/keys', await session(banned))).toBe('This account is banned');
    expect(await detail('GET', '/api/keys', await session(disabled))).toBe('API access is disabled for this account');
    expect(await detail('GET', '/api/admin/users', await session(pro))).toBe('Administrators only');
    expect(await detail('GET', '/api/admin/users', await key(superAdmin, ['compile']))).toBe(
      'API key missing required scope: admin',
    );
    expect(await detail('DELETE', '/admin/local-users/x', await session(viewer))).toBe(
      'Missing permission: users:manage',
    );
    expect(await detail('POST', '/api/auth/sign-out', await key(pro, ['compile']))).toBe(
      'This route needs a signed-in session, not an API key',
    );
  });

  test('a key reaches only the routes of its scopes', async () => {
    const rulesOnly = await key(pro, ['rules']);
    expect((await send('POST', '/api/validate-rule', rulesOnly)).status).toBe(422);
    const compile = await send('POST', '/api/compile', rulesOnly);
    expect(compile).toEqual({ status: 403, detail: 'API key missing required scope: compile' });
  });

  test('a key cannot grant more than its creator holds', async () => {
    const narrow = await key(pro, ['rules']);
    tick(61_000);
    const res = await app.request('/api/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${narrow}` },
      body: JSON.stringify({ name: 'wider', scopes: ['rules', 'compile'] }),
    });
    expect(res.status).toBe(403);
    tick(61_000);
    const adminScope = await app.request('/api/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await session(pro)}` },
      body: JSON.stringify({ name: 'admin', scopes: ['admin'] }),
    });
    expect(adminScope.status).toBe(403);
  });
});

const overridden = await openStore(':memory:');
const user = await overridden.createUser({ email: 'u@example.org', role: 'user', tier: 'free', password });
const proUser = await overridden.createUser({ email: 'p@example.org', role: 'user', tier: 'pro', password });
const admin = await overridden.createUser({ email: 'a@example.org', role: 'admin', tier: 'admin', password });
await overridden.assignRole(admin.id, 'viewer', 'test', new Date(clock).toISOString());
const served = createApp({
  store: overridden,
  version: '1',
  now: () => clock,
  startedAt: clock,
  makeReader: () => {
    throw new Error('unused');
  },
});
describe('endpoint overrides', () => {
  const call = async (method: string, path: string, token?: string) => {
    tick(61_000);
    return (
      await served.request(path, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: method === 'GET' ? undefined : '{"rule":"||a^"}',
      })
    ).status;
  };

  test('an override makes a route public, raises its tier or asks for scopes; the most specific wins', async () => {
    expect(await call('POST', '/api/validate-rule')).toBe(401);
    await overridden.createConfigRow(
      'endpoints',
      {
        path_pattern: '/api/validate-rule',
        method: 'POST',
        required_tier: null,
        required_scopes: null,
        is_public: true,
      },
      new Date(clock).toISOString(),
    );
    expect(await call('POST', '/api/validate-rule')).toBe(200);

    const free = (await startSession(overridden, user, clock)).token;
    expect(await call('POST', '/api/validate', free)).toBe(422);
    await overridden.createConfigRow(
      'endpoints',
      {
        path_pattern: '/api/*',
        method: '*',
        required_tier: 'pro',
        required_scopes: null,
        is_public: false,
      },
      new Date(clock).toISOString(),
    );
    expect(await call('POST', '/api/validate', free)).toBe(403);
    expect(await call('POST', '/api/validate', (await startSession(overridden, proUser, clock)).token)).toBe(422);
    // The exact override on validate-rule is more specific than the prefix.
    expect(await call('POST', '/api/validate-rule')).toBe(200);
    // Public routes under the prefix now need the tier too.
    expect(await call('GET', '/api/version', free)).toBe(403);
    await overridden.createConfigRow(
      'endpoints',
      {
        path_pattern: '/api/version',
        method: 'GET',
        required_tier: 'anonymous',
        required_scopes: null,
        is_public: false,
      },
      new Date(clock).toISOString(),
    );
    expect(await call('GET', '/api/version')).toBe(200);

    const rulesKey = (await issueApiKey(overridden, proUser, { name: 'k', scopes: ['rules'] }, clock)).text;
    expect(await call('GET', '/api/keys', rulesKey)).toBe(200);
    await overridden.createConfigRow(
      'endpoints',
      {
        path_pattern: '/api/keys',
        method: 'GET',
        required_tier: null,
        required_scopes: ['compile'],
        is_public: false,
      },
      new Date(clock).toISOString(),
    );
    expect(await call('GET', '/api/keys', rulesKey)).toBe(403);
  });

  test('overrides never open an admin route', async () => {
    await overridden.createConfigRow(
      'endpoints',
      {
        path_pattern: '/api/admin/*',
        method: '*',
        required_tier: null,
        required_scopes: null,
        is_public: true,
      },
      new Date(clock).toISOString(),
    );
    expect(await call('GET', '/api/admin/users')).toBe(401);
    expect(await call('GET', '/api/admin/users', (await startSession(overridden, admin, clock)).token)).toBe(200);
  });

  test('overrides never change the kind of credential a session-only route takes', async () => {
    for (const path of ['/api/auth/sign-out-all', '/api/auth/change-password'])
      await overridden.createConfigRow(
        'endpoints',
        {
          path_pattern: path,
          method: 'POST',
          required_tier: 'anonymous',
          required_scopes: null,
          is_public: true,
        },
        new Date(clock).toISOString(),
      );
    const k = (await issueApiKey(overridden, user, { name: 'k', scopes: ['compile', 'rules'] }, clock)).text;
    // Neither an API key nor no one: still "a signed-in session, not an API key".
    expect(await call('POST', '/api/auth/sign-out-all', k)).toBe(403);
    expect(await call('POST', '/api/auth/change-password', k)).toBe(403);
    expect(await call('POST', '/api/auth/sign-out-all')).toBe(401);
    expect(await call('POST', '/api/auth/sign-out-all', (await startSession(overridden, user, clock)).token)).toBe(200);
  });
});
