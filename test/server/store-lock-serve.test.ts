import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { call, PASSWORD, rootAndEditor } from '../support/serve-accounts.js';
import { holdWriteLock } from '../support/sqlite-lock.js';

// Issue 32: another process holds SQLite's write lock for 7 s while requests hit every write path
// of a real `flc serve`; afterwards every write is stored and the health report recovers.
const dir = mkdtempSync(join(tmpdir(), 'flc-lock-serve-'));
const db = join(dir, 'flc.db');
let server: ServeProcess;
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let root: string;
let user: string;
let victimId: string;
let editorId: string;
beforeAll(async () => {
  server = await startServe(['--db', db, '--trust-proxy', '127.0.0.1']);
  ({ root, editorId } = await rootAndEditor(server, db));
  const up = await anonymous('POST', '/api/auth/sign-up/email', {
    email: 'user@example.org',
    password: PASSWORD,
  });
  user = up.json.token;
  const victim = await anonymous('POST', '/api/auth/sign-up/email', {
    email: 'victim@example.org',
    password: PASSWORD,
  });
  victimId = victim.json.user.id;
});

/** Anonymous requests come from addresses of their own: the anonymous per-address limit is not under test. */
let addresses = 0;
const from = () => ({ 'x-forwarded-for': `192.0.2.${++addresses}` });
const anonymous = (method: string, path: string, body?: unknown) =>
  call(server.url, method, path, undefined, body, from());

/** A flash token, as a page request refused for lack of a session gets one. */
async function flashToken(): Promise<string> {
  const res = await fetch(`${server.url}/api/keys`, {
    headers: { accept: 'text/html', ...from() },
    redirect: 'manual',
  });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location') ?? '', server.url).searchParams.get('flash') ?? '';
}

const health = async () => (await anonymous('GET', '/api/health')).json;

/** Every write path once; `tag` makes each write's trace findable afterwards. */
function writes(tag: string, flash: string) {
  return {
    signUp: anonymous('POST', '/api/auth/sign-up/email', {
      email: `${tag}@example.org`,
      password: PASSWORD,
    }),
    key: call(server.url, 'POST', '/api/keys', user, { name: `key-${tag}` }),
    error: anonymous('POST', '/api/log/frontend-error', {
      source: 'browser',
      severity: 'low',
      message: `error-${tag}`,
    }),
    flash: anonymous('GET', `/api/flash/${flash}`),
    ruleSet: call(server.url, 'POST', '/api/rules', user, { name: `rules-${tag}`, rules: ['||example.org^'] }),
    ban: call(server.url, 'POST', `/api/admin/users/${victimId}/ban`, root, { reason: tag }),
    patch: call(server.url, 'PATCH', `/api/admin/users/${victimId}`, root, { tier: 'pro' }),
    role: call(server.url, 'POST', '/admin/system/roles/assign', root, {
      identity_user_id: editorId,
      role_name: tag === 'during' ? 'viewer' : 'super-admin',
    }),
  };
}
type Answers = { [K in keyof ReturnType<typeof writes>]: Awaited<ReturnType<typeof writes>[K]> };
const settle = async (w: ReturnType<typeof writes>) =>
  Object.fromEntries(await Promise.all(Object.entries(w).map(async ([k, p]) => [k, await p]))) as Answers;

/** Polls `check` until it holds, for at most `seconds`. */
async function eventually(check: () => Promise<boolean>, seconds = 30) {
  const until = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('the condition never held');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const errorMessages = async () =>
  ((await call(server.url, 'GET', '/api/admin/errors?limit=100', root)).json.events ?? []).map(
    (e: { message: string }) => e.message,
  );

/** What a write answered during the lock: done (and then stored), or 503 with Retry-After. */
function expectDoneOr503(name: string, res: { status: number; text: string; headers: Headers }) {
  if (res.status === 503) {
    expect(Number(res.headers.get('retry-after')), name).toBeGreaterThan(0);
  } else {
    expect(res.status, `${name}: ${res.text}`).toBeLessThan(300);
  }
}

describe('flc serve on a SQLite file another process has locked', () => {
  test('writes wait without blocking, 503 + Retry-After, the store heals and stores each later write', async () => {
    const flashDuring = await flashToken();
    const flashAfter = await flashToken();
    const lock = await holdWriteLock(db, 7_000);
    const during = writes('during', flashDuring);
    // The event loop stays free while the writes wait: health answers, and reports the store degraded.
    let answered = 0;
    let degraded = false;
    while (lock.running()) {
      const h = await health();
      answered += 1;
      if (h.checks?.store?.status === 'degraded') degraded = true;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(answered).toBeGreaterThan(3);
    expect(degraded).toBe(true);
    const d = await settle(during);
    for (const [name, res] of Object.entries(d)) expectDoneOr503(name, res);
    await lock.exited;

    // Every write after the lock is stored.
    const a = await settle(writes('after', flashAfter));
    expect(a.signUp.status, a.signUp.text).toBe(200);
    expect(a.key.status, a.key.text).toBe(201);
    expect(a.error.status).toBe(204);
    expect(a.flash.status, a.flash.text).toBe(200);
    expect(a.ruleSet.status, a.ruleSet.text).toBe(201);
    expect(a.ban.status, a.ban.text).toBe(200);
    expect(a.patch.status, a.patch.text).toBe(200);
    expect(a.role.status, a.role.text).toBe(200);
    const signIn = await anonymous('POST', '/api/auth/sign-in/email', {
      email: 'after@example.org',
      password: PASSWORD,
    });
    expect(signIn.status, signIn.text).toBe(200);
    const listed = await call(server.url, 'GET', '/api/keys', user);
    expect(listed.status, listed.text).toBe(200);
    const keys = listed.json.keys.map((k: { name: string }) => k.name);
    expect(keys).toContain('key-after');
    expect((await anonymous('GET', `/api/flash/${flashAfter}`)).status).toBe(404);
    const rules = (await call(server.url, 'GET', '/api/rules', user)).json.ruleSets.map(
      (r: { name: string }) => r.name,
    );
    expect(rules).toContain('rules-after');
    const victim = (await call(server.url, 'GET', `/api/admin/users/${victimId}`, root)).json.user;
    expect(victim.banned).toBe(true);
    expect(victim.banReason).toBe('after');
    expect(victim.tier).toBe('pro');
    await eventually(async () => (await errorMessages()).includes('error-after'));
    const roles = await call(server.url, 'GET', `/admin/system/roles/assignments?identity_user_id=${editorId}`, root);
    const held = roles.json.assignments.map((r: { role_name: string }) => r.role_name);
    expect(held).toContain('super-admin');
    if (d.role.status === 200) expect(held).toContain('viewer');
    expect((await call(server.url, 'POST', `/api/admin/users/${victimId}/unban`, root)).status).toBe(200);
    expect((await call(server.url, 'GET', `/api/admin/users/${victimId}`, root)).json.user.banned).toBe(false);

    // What was answered as done during the lock was stored too.
    if (d.key.status === 201) expect(keys).toContain('key-during');
    if (d.ruleSet.status === 201) expect(rules).toContain('rules-during');
    if (d.signUp.status === 200) {
      const during = { email: 'during@example.org', password: PASSWORD };
      expect((await anonymous('POST', '/api/auth/sign-in/email', during)).status).toBe(200);
    }
    if (d.flash.status === 200) expect((await anonymous('GET', `/api/flash/${flashDuring}`)).status).toBe(404);

    // The store's state recovers in the health report.
    await eventually(async () => (await health()).checks?.store?.status === 'ok');
    expect((await anonymous('GET', '/api/health/db-smoke')).status).toBe(200);
  });
});
