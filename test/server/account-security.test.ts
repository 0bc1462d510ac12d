import { describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../support/serve-process.js';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { issueApiKey } from '../../src/server/auth/identity.js';
import { parseTrustedProxies } from '../../src/server/client-address.js';
import { ConfigError } from '../../src/core/errors/index.js';
import { SIGN_UP_LIMITS } from '../../src/server/routes/auth.js';

const PASSWORD = 'correct horse battery';
const store = await openStore(':memory:');
const app = createApp({
  store,
  version: '1',
  now: () => Date.now(),
  startedAt: Date.now(),
  trustedProxies: parseTrustedProxies('10.0.0.0/8, ::1'),
  makeReader: () => {
    throw new Error('unused');
  },
});
const untrusting = createApp({
  store,
  version: '1',
  now: () => Date.now(),
  startedAt: Date.now(),
  makeReader: () => {
    throw new Error('unused');
  },
});

/** A request as if it came over a socket from `from` (the peer address Node would report). */
async function call(
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; from?: string; forwarded?: string; on?: OpenAPIHono } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.forwarded) headers['x-forwarded-for'] = opts.forwarded;
  const socket = { remoteAddress: opts.from ?? '192.0.2.1', remotePort: 40000, remoteFamily: 'IPv4' };
  const res = await (opts.on ?? app).request(
    path,
    { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) },
    { incoming: { socket } },
  );
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
}
let addresses = 0;
/** A new client address per use, so that address-keyed limits of one test never touch another. */
const fresh = () => {
  addresses += 1;
  return `198.51.100.${addresses}`;
};
const signUp = (email: string, extra: Record<string, unknown> = {}, from = fresh()) =>
  call('POST', '/api/auth/sign-up/email', { body: { email, password: PASSWORD, ...extra }, from });
/** An administrator with every permission, signed in. */
async function superAdmin(email: string) {
  const admin = await store.createUser({
    email,
    role: 'admin',
    tier: 'admin',
    password: { hash: 'h', salt: 's', iterations: 1 },
  });
  await store.assignRole(admin.id, 'super-admin', 'test', new Date().toISOString());
  return { admin, token: (await startSession(store, admin, Date.now())).token };
}
const signIn = (email: string, password = PASSWORD) =>
  call('POST', '/api/auth/sign-in/email', { body: { email, password }, from: fresh() });

describe('sign-up input and races', () => {
  test('emails are capped at 254 characters, names at 100, and names take no control characters', async () => {
    const long = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.org`;
    expect(long.length).toBeGreaterThan(254);
    expect((await signUp(long)).json.detail).toMatch(/at most 254/);
    expect((await signUp('n1@example.org', { name: 'x'.repeat(101) })).json.detail).toMatch(/at most 100/);
    for (const name of ['Ann\u0000', 'Ann\nBob', 'Ann\u001b[31m', 'Ann\u0085'])
      expect((await signUp('n2@example.org', { name })).json.detail).toBe(
        'name must not contain control characters (nor bidirectional formatting)',
      );
    expect((await signUp('n3@example.org', { name: 'Ann Ötzi 😀' })).status).toBe(200);
  });

  test('concurrent sign-ups with one email: one 200, the others 409, never 500', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => signUp('race@example.org')));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expect(r.json.detail).toMatch(/already exists/);
  });

  test('sign-ups are limited per address, whatever token the request carries', async () => {
    const { json } = await signUp('owner@example.org');
    const from = fresh();
    const statuses: number[] = [];
    for (let i = 0; i <= SIGN_UP_LIMITS.perAddress; i += 1) {
      const res = await call('POST', '/api/auth/sign-up/email', {
        body: { email: `many${i}@example.org`, password: PASSWORD },
        token: json.token,
        from,
      });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([...Array(SIGN_UP_LIMITS.perAddress).fill(200), 429]);
    expect((await signUp('elsewhere@example.org')).status).toBe(200);
  });
});

describe('passwords and sessions', () => {
  test('change-password needs the current password and ends the other sessions, not this one', async () => {
    const { json } = await signUp('change@example.org');
    const other = (await signIn('change@example.org')).json.token;
    const user = (await store.userByEmail('change@example.org'))!;
    const key = (await issueApiKey(store, user, { name: 'k', scopes: ['rules'] }, Date.now())).text;
    const change = (currentPassword: string, token = json.token) =>
      call('POST', '/api/auth/change-password', { token, body: { currentPassword, newPassword: 'a new password' } });
    expect((await change('wrong password')).status).toBe(403);
    expect((await change(PASSWORD, key)).status).toBe(403);
    const changed = await change(PASSWORD);
    expect(changed).toMatchObject({ status: 200, json: { success: true, sessionsEnded: 1 } });
    expect((await call('GET', '/api/auth/get-session', { token: other })).json.user).toBeNull();
    expect((await call('GET', '/api/auth/get-session', { token: json.token })).json.user.email).toBe(
      'change@example.org',
    );
    expect((await signIn('change@example.org')).status).toBe(401);
    expect((await signIn('change@example.org', 'a new password')).status).toBe(200);
    expect((await call('GET', '/api/keys', { token: key })).status).toBe(200);
  });

  test('sign-out-all ends every session of the user, this one too; keys go on', async () => {
    const { json } = await signUp('everywhere@example.org');
    const second = (await signIn('everywhere@example.org')).json.token;
    const user = (await store.userByEmail('everywhere@example.org'))!;
    const key = (await issueApiKey(store, user, { name: 'k', scopes: ['rules'] }, Date.now())).text;
    expect((await call('POST', '/api/auth/sign-out-all', { token: key })).status).toBe(403);
    expect(await call('POST', '/api/auth/sign-out-all', { token: second })).toMatchObject({
      status: 200,
      json: { success: true, sessionsEnded: 2 },
    });
    for (const token of [json.token, second])
      expect((await call('GET', '/api/auth/get-session', { token })).json.user).toBeNull();
    expect((await call('GET', '/api/keys', { token: key })).status).toBe(200);
  });

  test("an administrator's reset sets the password and ends every session of the user", async () => {
    const { admin, token: adminToken } = await superAdmin('reset-admin@example.org');
    const { json } = await signUp('forgot@example.org');
    const reset = (id: string, token = adminToken, password = 'reset password 1') =>
      call('POST', `/admin/local-users/${id}/reset-password`, { token, body: { password } });
    expect((await reset(json.user.id, json.token)).status).toBe(403);
    expect((await reset(json.user.id, adminToken, 'short')).status).toBe(422);
    expect((await reset('nobody')).status).toBe(404);
    expect((await reset(admin.id)).status).toBe(403);
    expect(await reset(json.user.id)).toMatchObject({ status: 200, json: { success: true, sessionsEnded: 1 } });
    expect((await call('GET', '/api/auth/get-session', { token: json.token })).json.user).toBeNull();
    expect((await signIn('forgot@example.org', 'reset password 1')).status).toBe(200);
  });
});

describe('local users and `flc user add` take the same caps', () => {
  test('flc user add refuses a long email and a name with control characters (exit 2)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flc-caps-'));
    try {
      const db = join(dir, 'flc.db');
      const add = (email: string, ...extra: string[]) =>
        spawnSync(process.execPath, [BIN, 'user', 'add', email, '--role', 'user', '--db', db, ...extra], {
          input: `${PASSWORD}\n`,
          encoding: 'utf8',
        });
      const long = add(`${'a'.repeat(250)}@example.org`);
      expect(long.status).toBe(2);
      expect(long.stderr).toMatch(/at most 254/);
      const named = add('ok@example.org', '--name', 'Ann\u001b[2J');
      expect(named.status).toBe(2);
      expect(named.stderr).toMatch(/control characters/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('/admin/local-users refuses an identifier over 254 characters', async () => {
    const { token } = await superAdmin('cap-admin@example.org');
    const identifier = `${'a'.repeat(250)}@example.org`;
    const res = await call('POST', '/admin/local-users', { token, body: { identifier, password: PASSWORD } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toMatch(/at most 254/);
  });
});

describe('the client address behind reverse proxies', () => {
  const version = (from: string, forwarded?: string, on?: OpenAPIHono) =>
    call('GET', '/api/version', { from, forwarded, on });
  const tenThenEleventh = async (send: () => Promise<{ status: number }>) => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push((await send()).status);
    return statuses;
  };

  test('through a trusted proxy, X-Forwarded-For names the client, read from the right', async () => {
    expect(await tenThenEleventh(() => version('10.0.0.5', '203.0.113.1'))).toEqual([...Array(10).fill(200), 429]);
    // Another client through the same proxy has its own count.
    expect((await version('10.0.0.5', '203.0.113.2')).status).toBe(200);
    // Through two trusted proxies (an IPv4-mapped peer included), the client is the first untrusted hop.
    expect((await version('::ffff:10.0.0.6', '203.0.113.1, 10.1.2.3')).status).toBe(429);
    // A client cannot pick an address by writing one itself: the proxy appended the real one.
    expect((await version('10.0.0.5', '203.0.113.2, 203.0.113.1')).status).toBe(429);
  });

  test('a peer that is not a trusted proxy is the client, whatever X-Forwarded-For says', async () => {
    const statuses = await tenThenEleventh(() =>
      version('192.0.2.77', `203.0.113.${Math.floor(Math.random() * 200) + 20}`),
    );
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    // Without --trust-proxy, no proxy is believed, not even on loopback.
    let n = 0;
    const viaUntrusting = await tenThenEleventh(() => {
      n += 1;
      return version('10.0.0.9', `203.0.113.${n}`, untrusting);
    });
    expect(viaUntrusting.at(-1)).toBe(429);
  });

  test('--trust-proxy takes addresses and CIDRs and refuses anything else', () => {
    const trusted = parseTrustedProxies('127.0.0.1, 10.0.0.0/8 ::1 fd00::/8');
    expect(['127.0.0.1', '::ffff:127.0.0.1', '10.9.8.7', '::1', 'fd12::1'].every(trusted)).toBe(true);
    expect(['127.0.0.2', '11.0.0.1', '::2', 'garbage'].some(trusted)).toBe(false);
    expect(() => parseTrustedProxies('10.0.0.0/8, proxy.local')).toThrow(ConfigError);
  });
});
