import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { openStore } from '../../src/server/store/open.js';
import type { Store } from '../../src/server/store/store.js';
import { freshPostgresUrl, POSTGRES_SKIP_REASON, POSTGRES_URL } from '../support/postgres.js';
import { addUser, type ServeProcess, startServe } from '../support/serve-process.js';

const PASSWORD = 'a long enough password';
const running: ServeProcess[] = [];
let store: Store | undefined;
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  await store?.close();
});

async function call(base: string, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** Two `flc serve` processes on one PostgreSQL database: what one does, the other sees at the next request. */
describe('two flc serve processes on one PostgreSQL database', () => {
  beforeEach((ctx) => {
    if (!POSTGRES_URL) ctx.skip(POSTGRES_SKIP_REASON);
  });

  test('share accounts, sessions, keys, roles and rate limits', async () => {
    const db = await freshPostgresUrl();
    // A URL with a password (trust authentication ignores it): no log may show it.
    const withPassword = new URL(db);
    withPassword.password = 'hunter2-secret';
    const added = addUser(withPassword.toString(), 'root@example.org', 'admin', PASSWORD);
    expect(added.status, added.stderr).toBe(0);
    // The free tier allows 10 requests a minute on this database, for the rate-limit part below.
    store = await openStore(db);
    await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 10 }, new Date().toISOString());

    const [a, b] = await Promise.all([
      startServe(['--db', withPassword.toString(), '--trust-proxy', '127.0.0.1']),
      startServe([], { FLC_DATABASE_URL: db, FLC_TRUST_PROXY: '127.0.0.1' }),
    ]);
    running.push(a, b);
    for (const p of [a, b]) expect(p.log()).toMatch(/store: PostgreSQL postgres:\/\/postgres(:\*\*\*)?@127\.0\.0\.1/);
    expect(a.log() + b.log() + added.stderr).not.toContain('hunter2-secret');

    // Signed up through the first, signs in through the second.
    const up = await call(a.url, 'POST', '/api/auth/sign-up/email', undefined, {
      email: 'ann@example.org',
      password: PASSWORD,
    });
    expect(up.status).toBe(200);
    const signIn = await call(b.url, 'POST', '/api/auth/sign-in/email', undefined, {
      email: 'ann@example.org',
      password: PASSWORD,
    });
    expect(signIn.status).toBe(200);
    expect(signIn.json.user.id).toBe(up.json.user.id);
    const annOnB = signIn.json.token as string;
    expect((await call(a.url, 'GET', '/api/auth/get-session', annOnB)).json.user.email).toBe('ann@example.org');

    // Sign-ups racing with one email through both servers (from four clients behind the trusted
    // proxy, so the per-address sign-up limit does not decide): one account, the others 409, never 500.
    const racing = await Promise.all(
      [a, b, a, b].map((p, i) =>
        fetch(`${p.url}/api/auth/sign-up/email`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${i}` },
          body: JSON.stringify({ email: 'race@example.org', password: PASSWORD }),
        }).then((r) => r.status),
      ),
    );
    expect(racing.sort()).toEqual([200, 409, 409, 409]);

    // A key made on the first works on the second; revoked on the second, the first refuses it next.
    const made = await call(a.url, 'POST', '/api/keys', up.json.token, { name: 'ci', scopes: ['rules'] });
    expect(made.status).toBe(201);
    expect((await call(b.url, 'GET', '/api/keys', made.json.key)).status).toBe(200);
    expect((await call(a.url, 'GET', '/api/keys', made.json.key)).status).toBe(200);
    expect((await call(b.url, 'DELETE', `/api/keys/${made.json.id}`, annOnB)).status).toBe(200);
    expect((await call(a.url, 'GET', '/api/keys', made.json.key)).status).toBe(401);

    // A tier whose limit is 10 a minute: the 11th request across both servers is refused.
    const bob = await call(a.url, 'POST', '/api/auth/sign-up/email', undefined, {
      email: 'bob@example.org',
      password: PASSWORD,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1)
      statuses.push((await call(i % 2 ? b.url : a.url, 'GET', '/api/version', bob.json.token)).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);

    // A role assigned through one server applies on the other at the next request.
    const root = await call(b.url, 'POST', '/api/auth/sign-in/email', undefined, {
      email: 'root@example.org',
      password: PASSWORD,
    });
    const annId = up.json.user.id as string;
    const mine = (base: string) => call(base, 'GET', '/admin/system/my-permissions', annOnB);
    expect((await mine(b.url)).status).toBe(403);
    const promoted = await call(a.url, 'PATCH', `/api/admin/users/${annId}`, root.json.token, { role: 'admin' });
    expect(promoted.status).toBe(200);
    expect(await mine(b.url)).toEqual({ status: 200, json: { success: true, permissions: [] } });
    // An admin role written by a third writer (this test, as `flc user add` or the admin routes do).
    await store.assignRole(annId, 'viewer', 'test', new Date().toISOString());
    expect((await mine(a.url)).json.permissions).toContain('users:read');
    expect((await call(b.url, 'GET', '/api/admin/users', annOnB)).status).toBe(200);
    // Banned through the second: the first refuses her session and key at once.
    expect((await call(b.url, 'POST', `/api/admin/users/${annId}/ban`, root.json.token, {})).status).toBe(200);
    expect((await call(a.url, 'GET', '/api/auth/get-session', annOnB)).json).toEqual({ session: null, user: null });
  });
});

describe('flc serve on PostgreSQL, stopped at once', () => {
  beforeEach((ctx) => {
    if (!POSTGRES_URL) ctx.skip(POSTGRES_SKIP_REASON);
  });

  // SIGTERM as soon as it listens, while the queue's wake-up connection may still be opening:
  // it must not keep the process alive.
  test('exits when told to stop while its queue is still starting', async () => {
    const db = await freshPostgresUrl();
    const server = await startServe(['--db', db]);
    const exited = new Promise<string>((done) =>
      server.child.once('exit', (code, signal) => done(`${code} ${signal}`)),
    );
    server.child.kill('SIGTERM');
    expect(await exited, server.log()).toBe('0 null');
  }, 30_000);
});
