import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/server/store/open.js';
import { createApp } from '../../src/server/app.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { holdWriteLock } from '../support/sqlite-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'flc-locked-'));
const file = join(dir, 'flc.db');
const store = await openStore(file);
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});
const app = createApp({
  store,
  version: '1',
  now: () => Date.now(),
  startedAt: Date.now(),
  makeReader: () => {
    throw new Error('unused');
  },
});
const password = { hash: 'h', salt: 's', iterations: 1 };
const admin = await store.createUser({ email: 'admin@example.org', role: 'admin', tier: 'admin', password });
await store.assignRole(admin.id, 'super-admin', 'test', new Date().toISOString());
const victim = await store.createUser({ email: 'victim@example.org', role: 'user', tier: 'free', password });
const token = (await startSession(store, admin, Date.now())).token;
const call = (method: string, path: string, body?: unknown) =>
  app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('a SQLite store locked by another process', () => {
  test('writes during the lock fail with 503 and Retry-After, health answers throughout, all works after', async () => {
    const lock = await holdWriteLock(file, 10_000);
    const writes = Promise.all([
      call('POST', `/api/admin/users/${victim.id}/ban`, { reason: 'spam' }),
      call('PATCH', `/admin/local-users/${victim.id}`, { tier: 'pro' }),
      app.request('/api/health/db-smoke'),
    ]);
    // The event loop stays free: the probe answers while the writes wait for the lock.
    const probes: number[] = [];
    while (lock.running()) {
      const started = performance.now();
      const res = await app.request('/api/health');
      expect(res.status).toBe(200);
      probes.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 200));
    }
    const [ban, patch, smoke] = await writes;
    for (const res of [ban, patch]) {
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(smoke.status).toBe(503);
    expect(probes.length).toBeGreaterThan(20);
    // Generous, for a shared machine: a blocked loop would hold a probe for seconds.
    expect(Math.max(...probes)).toBeLessThan(1_000);

    // Nothing is poisoned: the same requests work once the lock is gone.
    await lock.exited;
    expect((await call('POST', `/api/admin/users/${victim.id}/ban`, { reason: 'spam' })).status).toBe(200);
    expect((await call('POST', `/api/admin/users/${victim.id}/unban`)).status).toBe(200);
    expect((await call('PATCH', `/admin/local-users/${victim.id}`, { tier: 'pro' })).status).toBe(200);
    expect((await call('GET', '/api/admin/users')).status).toBe(200);
    expect((await app.request('/api/health/db-smoke')).status).toBe(200);
  });
});
