import { describe, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { issueApiKey } from '../../src/server/auth/identity.js';
import { hashPassword } from '../../src/server/auth/password.js';
import { appClient } from '../support/app-client.js';

let clock = Date.parse('2026-10-01T12:00:00Z');
const store = await openStore(':memory:');
const logged: string[] = [];
const app = createApp(
  {
    store,
    version: '1',
    now: () => clock,
    startedAt: clock,
    makeReader: () => {
      throw new Error('unused');
    },
  },
  (m) => logged.push(m),
);
const { call: request, responses } = appClient(app);
const password = { hash: 'h', salt: 's', iterations: 1 };
const admin = await store.createUser({ email: 'root@example.org', role: 'admin', tier: 'admin', password });
await store.assignRole(admin.id, 'super-admin', 'test', new Date(clock).toISOString());
const adminToken = (await startSession(store, admin, clock)).token;
const call = (method: string, path: string, body?: unknown, token = adminToken) =>
  request(method, path, { body, token });
const LOCAL_KEYS = ['api_disabled', 'created_at', 'id', 'identifier', 'identifier_type', 'role', 'tier', 'updated_at'];

describe('/admin/local-users', () => {
  const SECRET = 'a password nobody may see';
  let id = '';

  test('create: the password is hashed, the role derives the tier, a taken identifier is 409', async () => {
    const res = await call('POST', '/admin/local-users', { identifier: 'New.User@Example.org', password: SECRET });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json.user).sort()).toEqual(LOCAL_KEYS);
    expect(res.json.user).toMatchObject({
      identifier: 'new.user@example.org',
      identifier_type: 'email',
      role: 'user',
      tier: 'free',
      api_disabled: 0,
    });
    id = res.json.user.id;
    expect(
      (await call('POST', '/admin/local-users', { identifier: 'new.user@example.org', password: 'another password' }))
        .status,
    ).toBe(409);

    const adminUser = await call('POST', '/admin/local-users', {
      identifier: '+4915112345678',
      password: SECRET,
      role: 'admin',
    });
    expect(adminUser.json.user).toMatchObject({
      identifier: '+4915112345678',
      identifier_type: 'phone',
      role: 'admin',
      tier: 'admin',
    });
    const both = await call('POST', '/admin/local-users', {
      identifier: 'pro@example.org',
      password: SECRET,
      role: 'user',
      tier: 'pro',
    });
    expect(both.json.user).toMatchObject({ role: 'user', tier: 'pro' });

    const stored = (await store.userByEmail('new.user@example.org'))!.password;
    expect(stored.iterations).toBeGreaterThanOrEqual(600_000);
    expect(stored.hash).not.toContain(SECRET);
  });

  test.each([
    [{ password: 'long enough' }, /identifier/],
    [
      { identifier: 'not an address', password: 'long enough' },
      /identifier must be an email address or an E\.164 phone number/,
    ],
    [{ identifier: 'x@example.org', password: 'short' }, /password must be at least 8 characters/],
    [{ identifier: 'x@example.org', password: 'long enough', role: 'owner' }, /role/],
    [{ identifier: 'x@example.org', password: 'long enough', tier: 'anonymous' }, /tier/],
  ])('create refuses %j with 422', async (body, message) => {
    const res = await call('POST', '/admin/local-users', body);
    expect(res.status).toBe(422);
    expect(res.json.detail).toMatch(message);
  });

  test('list with limit and offset; get one; 404 for an unknown id', async () => {
    const all = await call('GET', '/admin/local-users');
    expect(all.json).toMatchObject({ success: true, total: 4, limit: 50, offset: 0 });
    expect(all.json.users.map((u: { identifier: string }) => u.identifier)).toEqual([
      'root@example.org',
      'new.user@example.org',
      '+4915112345678',
      'pro@example.org',
    ]);
    const page = await call('GET', '/admin/local-users?limit=2&offset=1');
    expect(page.json).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.json.users.map((u: { identifier: string }) => u.identifier)).toEqual([
      'new.user@example.org',
      '+4915112345678',
    ]);
    for (const bad of ['limit=0', 'limit=101', 'offset=-1', 'limit=ten'])
      expect((await call('GET', `/admin/local-users?${bad}`)).status).toBe(422);
    expect((await call('GET', `/admin/local-users/${id}`)).json.user.identifier).toBe('new.user@example.org');
    expect((await call('GET', '/admin/local-users/nobody')).status).toBe(404);
  });

  test('patch: role alone derives the tier; both independently; api_disabled blocks every API access', async () => {
    clock += 1_000;
    expect((await call('PATCH', `/admin/local-users/${id}`, { role: 'admin' })).json.user).toMatchObject({
      role: 'admin',
      tier: 'admin',
    });
    expect((await call('PATCH', `/admin/local-users/${id}`, { role: 'user', tier: 'pro' })).json.user).toMatchObject({
      role: 'user',
      tier: 'pro',
    });
    const updated = await call('PATCH', `/admin/local-users/${id}`, { tier: 'free' });
    expect(updated.json.user).toMatchObject({ role: 'user', tier: 'free', updated_at: new Date(clock).toISOString() });
    expect((await call('PATCH', `/admin/local-users/${id}`, {})).status).toBe(422);
    expect((await call('PATCH', `/admin/local-users/${id}`, { api_disabled: 2 })).status).toBe(422);
    expect((await call('PATCH', '/admin/local-users/nobody', { tier: 'pro' })).status).toBe(404);

    const user = (await store.userById(id))!;
    const token = (await startSession(store, user, clock)).token;
    const key = (await issueApiKey(store, user, { name: 'k', scopes: ['compile', 'rules'] }, clock)).text;
    expect((await call('GET', '/api/keys', undefined, token)).status).toBe(200);
    expect((await call('PATCH', `/admin/local-users/${id}`, { api_disabled: 1 })).json.user.api_disabled).toBe(1);
    for (const t of [token, key]) {
      const res = await call('POST', '/api/validate-rule', { rule: '||a^' }, t);
      expect(res.status).toBe(403);
      expect(res.json.detail).toBe('API access is disabled for this account');
    }
    expect((await call('PATCH', `/admin/local-users/${id}`, { api_disabled: 0 })).json.user.api_disabled).toBe(0);
    expect((await call('POST', '/api/validate-rule', { rule: '||a^' }, key)).status).toBe(200);
  });

  test('an administrator cannot lock themselves out', async () => {
    for (const [method, body] of [
      ['PATCH', { role: 'user' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, `/admin/local-users/${admin.id}`, body);
      expect(res.status).toBe(403);
    }
    expect((await call('POST', `/api/admin/users/${admin.id}/ban`, {})).status).toBe(403);
    expect(await store.userById(admin.id)).toMatchObject({ role: 'admin', banned: false });
  });

  test('delete: 200 with a message, then 404; sessions and keys go with the user', async () => {
    const user = (await store.userById(id))!;
    const token = (await startSession(store, user, clock)).token;
    const res = await call('DELETE', `/admin/local-users/${id}`);
    expect(res.json).toEqual({ success: true, message: `User ${id} deleted` });
    expect((await call('DELETE', `/admin/local-users/${id}`)).status).toBe(404);
    expect((await call('GET', '/api/keys', undefined, token)).status).toBe(401);
  });

  test('no password or hash appears in any response or log line', () => {
    for (const text of [...responses, ...logged]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toMatch(/password_hash|"hash"|"salt"/);
    }
  });
});

describe('/api/admin/users', () => {
  test('list, get, patch, ban and unban, delete', async () => {
    const target = await store.createUser({
      email: 'target@example.org',
      role: 'user',
      tier: 'free',
      password: await hashPassword('target password', 1_000),
    });
    const list = await call('GET', '/api/admin/users?limit=100');
    expect(list.json.users.map((u: { email: string }) => u.email)).toContain('target@example.org');
    expect(list.json.total).toBe(list.json.users.length);
    expect((await call('GET', `/api/admin/users/${target.id}`)).json.user).toMatchObject({
      email: 'target@example.org',
      banned: false,
    });
    expect((await call('PATCH', `/api/admin/users/${target.id}`, { role: 'admin' })).json.user).toMatchObject({
      role: 'admin',
      tier: 'admin',
    });
    expect(
      (await call('PATCH', `/api/admin/users/${target.id}`, { role: 'user', tier: 'pro', apiDisabled: false })).json
        .user,
    ).toMatchObject({ role: 'user', tier: 'pro' });
    expect((await call('PATCH', `/api/admin/users/${target.id}`, { banned: true })).status).toBe(422);

    const token = (await startSession(store, (await store.userById(target.id))!, clock)).token;
    const key = (await issueApiKey(store, (await store.userById(target.id))!, { name: 'k', scopes: ['rules'] }, clock))
      .text;
    const ban = await call('POST', `/api/admin/users/${target.id}/ban`, { reason: 'abuse' });
    expect(ban.json.user).toMatchObject({ banned: true, banReason: 'abuse' });
    // The ban ended the session; the key no longer acts; signing in again is refused.
    expect((await call('GET', '/api/keys', undefined, token)).status).toBe(401);
    expect((await call('POST', '/api/validate-rule', { rule: '||a^' }, key)).json.detail).toBe(
      'This account is banned',
    );
    const signIn = await call(
      'POST',
      '/api/auth/sign-in/email',
      { email: 'target@example.org', password: 'target password' },
      '',
    );
    expect(signIn.status).toBe(403);
    expect((await call('POST', `/api/admin/users/${target.id}/unban`)).json.user).toMatchObject({
      banned: false,
      banReason: null,
    });
    expect((await call('POST', '/api/validate-rule', { rule: '||a^' }, key)).status).toBe(200);
    expect((await call('DELETE', `/api/admin/users/${target.id}`)).json.success).toBe(true);
    expect((await call('GET', `/api/admin/users/${target.id}`)).status).toBe(404);
    expect((await call('POST', `/api/admin/users/${target.id}/ban`, {})).status).toBe(404);
  });
});

describe('usage', () => {
  test('counted per user, UTC day and route; read back over 1-90 days', async () => {
    const user = await store.createUser({ email: 'counted@example.org', role: 'user', tier: 'pro', password });
    const token = (await startSession(store, user, clock)).token;
    clock = Date.parse('2026-10-02T23:59:00Z');
    await call('POST', '/api/validate-rule', { rule: '||a^' }, token);
    await call('POST', '/api/validate-rule', { rule: '||b^' }, token);
    await call('GET', '/api/keys', undefined, token);
    clock = Date.parse('2026-10-03T00:01:00Z');
    await call('DELETE', '/api/keys/nope', undefined, token);
    await call('POST', '/api/validate-rule', { rule: '' }, token);

    const usage = await call('GET', `/api/admin/usage/${user.id}`);
    expect(usage.json).toEqual({
      success: true,
      userId: user.id,
      total: { count: 5, firstSeen: '2026-10-02T23:59:00.000Z', lastSeen: '2026-10-03T00:01:00.000Z' },
      days: [
        { date: '2026-10-02', count: 3, routes: { 'POST /api/validate-rule': 2, 'GET /api/keys': 1 } },
        { date: '2026-10-03', count: 2, routes: { 'DELETE /api/keys/:id': 1, 'POST /api/validate-rule': 1 } },
      ],
      lookbackDays: 30,
    });
    expect((await call('GET', `/admin/usage/${user.id}?days=1`)).json).toMatchObject({
      total: { count: 2 },
      days: [{ date: '2026-10-03' }],
      lookbackDays: 1,
    });
    // 89 days after the first request it is still in a 90-day lookback, not in a 30-day one.
    clock = Date.parse('2026-12-30T00:00:00Z');
    const later = (await startSession(store, admin, clock)).token;
    expect((await call('GET', `/api/admin/usage/${user.id}?days=90`, undefined, later)).json.total.count).toBe(5);
    expect((await call('GET', `/api/admin/usage/${user.id}?days=30`, undefined, later)).json).toMatchObject({
      total: { count: 0, firstSeen: null, lastSeen: null },
      days: [],
    });
    for (const days of ['0', '91', 'x'])
      expect((await call('GET', `/api/admin/usage/${user.id}?days=${days}`, undefined, later)).status).toBe(422);
    expect((await call('GET', '/api/admin/usage/nobody', undefined, later)).status).toBe(404);
  });
});
