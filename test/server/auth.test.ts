import { describe, expect, test, vi } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { SESSION_TTL_MS } from '../../src/server/auth/sessions.js';
import { SIGN_IN_LIMITS } from '../../src/server/routes/auth.js';
import { appClient } from '../support/app-client.js';

// Date is faked too: the rate limiter reads it, and its windows move only with the clock.
let clock = Date.parse('2026-05-01T00:00:00Z');
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
    throw new Error('unused');
  },
});
const PASSWORD = 'correct horse battery';
const { call: request, responses } = appClient(app);
const call = (method: string, path: string, body?: unknown, token?: string) => request(method, path, { body, token });

describe('local accounts and sessions', () => {
  let token = '';

  test('providers', async () => {
    expect((await call('GET', '/api/auth/providers')).json).toEqual({
      providers: [{ id: 'email', type: 'credentials', signUp: true }],
    });
  });

  test('sign-up answers a token and the user, never a hash', async () => {
    const res = await call('POST', '/api/auth/sign-up/email', {
      email: 'Ann@Example.org',
      password: PASSWORD,
      name: 'Ann',
    });
    expect(res.status).toBe(200);
    expect(res.json.token).toMatch(/^flcs_[A-Za-z0-9_-]{43}$/);
    expect(res.json.user).toMatchObject({
      email: 'ann@example.org',
      name: 'Ann',
      role: 'user',
      tier: 'free',
      banned: false,
    });
    expect(Object.keys(res.json.user).sort()).toEqual([
      'apiDisabled',
      'banReason',
      'banned',
      'createdAt',
      'email',
      'id',
      'identifierType',
      'name',
      'role',
      'tier',
      'updatedAt',
    ]);
    expect(
      (await call('POST', '/api/auth/sign-up/email', { email: 'ann@example.org', password: PASSWORD })).status,
    ).toBe(409);
    expect((await call('POST', '/api/auth/sign-up/email', { email: 'not-an-email', password: 'short' })).status).toBe(
      422,
    );
  });

  test('a wrong password and an unknown user are indistinguishable', async () => {
    const wrong = await call('POST', '/api/auth/sign-in/email', {
      email: 'ann@example.org',
      password: 'not the password',
    });
    const unknown = await call('POST', '/api/auth/sign-in/email', {
      email: 'nobody@example.org',
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    expect({ ...wrong.json, instance: null }).toEqual({ ...unknown.json, instance: null });
  });

  test('sign-in, get-session, sign-out', async () => {
    const signIn = await call('POST', '/api/auth/sign-in/email', { email: 'ANN@example.org', password: PASSWORD });
    expect(signIn.status).toBe(200);
    token = signIn.json.token;
    const session = await call('GET', '/api/auth/get-session', undefined, token);
    expect(session.json).toMatchObject({
      user: { email: 'ann@example.org' },
      session: { expiresAt: new Date(clock + SESSION_TTL_MS).toISOString() },
    });
    expect((await call('GET', '/api/auth/get-session')).json).toEqual({ session: null, user: null });
    expect((await call('POST', '/api/auth/sign-out', undefined, token)).json).toEqual({ success: true });
    expect((await call('GET', '/api/auth/get-session', undefined, token)).json).toEqual({ session: null, user: null });
    expect((await call('POST', '/api/auth/sign-out', undefined, token)).status).toBe(401);
  });

  test('sessions expire', async () => {
    const signIn = await call('POST', '/api/auth/sign-in/email', { email: 'ann@example.org', password: PASSWORD });
    tick(SESSION_TTL_MS + 1);
    expect((await call('GET', '/api/auth/get-session', undefined, signIn.json.token)).json).toEqual({
      session: null,
      user: null,
    });
  });

  test('sign-in attempts are rate-limited per identifier and address', async () => {
    tick(120_000);
    let last = { status: 0, headers: new Headers() };
    for (let i = 0; i <= SIGN_IN_LIMITS.perIdentifier; i += 1)
      last = await call('POST', '/api/auth/sign-in/email', { email: 'limit@example.org', password: 'whatever123' });
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 60_000);

  test('no response ever contains a password or a hash', () => {
    const all = responses.join('\n');
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toMatch(/password_hash|password_salt|"hash"|"salt"/);
  });
});
