import { describe, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { hashPassword } from '../../src/server/auth/password.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { appClient } from '../support/app-client.js';

let clock = Date.parse('2026-06-01T00:00:00Z');
const store = await openStore(':memory:');
const app = createApp({
  store,
  version: '1',
  now: () => clock,
  startedAt: clock,
  makeReader: () => {
    throw new Error('unused');
  },
});
const { call: request } = appClient(app);
const call = (method: string, path: string, token?: string, body?: unknown) => request(method, path, { token, body });

describe('API keys', async () => {
  const password = await hashPassword('owner password', 1_000);
  const owner = await store.createUser({ email: 'owner@example.org', role: 'user', tier: 'pro', password });
  const other = await store.createUser({ email: 'other@example.org', role: 'user', tier: 'free', password });
  const session = (await startSession(store, owner, clock)).token;
  const otherSession = (await startSession(store, other, clock)).token;
  const created: string[] = [];

  test('creating needs a signed-in caller; the key is flc_ + 32 bytes, shown once', async () => {
    expect((await call('POST', '/api/keys', undefined, { name: 'ci' })).status).toBe(401);
    const res = await call('POST', '/api/keys', session, { name: 'ci', scopes: ['compile'], expiresInDays: 30 });
    expect(res.status).toBe(201);
    expect(res.json.key).toMatch(/^flc_[A-Za-z0-9_-]{43}$/);
    expect(res.json).toMatchObject({
      name: 'ci',
      scopes: ['compile'],
      prefix: res.json.key.slice(0, 12),
      expiresAt: '2026-07-01T00:00:00.000Z',
      revokedAt: null,
    });
    created.push(res.json.key);
    const list = await call('GET', '/api/keys', session);
    expect(list.json.keys).toHaveLength(1);
    expect(JSON.stringify(list.json)).not.toContain(res.json.key);
    expect(Object.keys(list.json.keys[0]).sort()).toEqual([
      'createdAt',
      'expiresAt',
      'id',
      'lastUsedAt',
      'name',
      'prefix',
      'revokedAt',
      'scopes',
    ]);
  });

  test('a key acts as its owner, and records its use', async () => {
    const viaKey = await call('GET', '/api/keys', created[0]);
    expect(viaKey.status).toBe(200);
    expect(viaKey.json.keys[0].lastUsedAt).toBe(new Date(clock).toISOString());
    expect((await call('GET', '/api/keys', otherSession)).json.keys).toEqual([]);
  });

  test.each([
    [{ name: '' }, /name must not be empty/],
    [{ name: 'x', scopes: ['everything'] }, /unknown scope "everything"/],
    [{ name: 'x', expiresInDays: 0 }, /expiresInDays/],
  ])('422 for %j', async (body, message) => {
    const res = await call('POST', '/api/keys', session, body);
    expect(res.status).toBe(422);
    expect(res.json.detail).toMatch(message);
  });

  test('revocation: only by the owner, then the key no longer works', async () => {
    const id = (await call('GET', '/api/keys', session)).json.keys[0].id;
    expect((await call('DELETE', `/api/keys/${id}`, otherSession)).status).toBe(404);
    expect((await call('DELETE', `/api/keys/${id}`, session)).json).toEqual({ success: true });
    expect((await call('DELETE', `/api/keys/${id}`, session)).status).toBe(404);
    expect((await call('GET', '/api/keys', created[0])).status).toBe(401);
  });

  test('an expired key no longer works', async () => {
    const res = await call('POST', '/api/keys', session, { name: 'short', expiresInDays: 1 });
    expect((await call('GET', '/api/keys', res.json.key)).status).toBe(200);
    clock += 86_400_000 + 1;
    expect((await call('GET', '/api/keys', res.json.key)).status).toBe(401);
  });

  test('keys are stored hashed', async () => {
    const rows = JSON.stringify(await store.apiKeys(owner.id));
    for (const key of created) expect(rows).not.toContain(key);
  });
});
