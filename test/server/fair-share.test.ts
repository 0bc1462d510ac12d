import { afterAll, describe, expect, test } from 'vitest';
import { CompilePool } from '../../src/node/compile-pool.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { testApp } from '../support/test-app.js';

/** Sources whose text arrives when the test lets it: `https://held.example/N` waits for `release(N)`. */
function heldSources() {
  const waiting = new Map<string, () => void>();
  const started: string[] = [];
  const release = (name: string) => waiting.get(name)?.();
  const reader = {
    resolve: (ref: string) => ref,
    read: (location: string) => {
      if (!location.startsWith('https://held.example/')) return Promise.resolve('||quick.example^\n');
      started.push(location);
      return new Promise<string>((done) => waiting.set(location.slice(21), () => done('||held.example^\n')));
    },
    close: async () => undefined,
  };
  const config = (name: string) => ({ name, sources: [{ source: `https://held.example/${name}` }] });
  return { reader, release, started, config };
}
const settle = async (until: () => boolean) => {
  while (!until()) await new Promise((r) => setTimeout(r, 10));
};

describe('the wait for a worker does not count against a deadline', () => {
  const pool = new CompilePool({ size: 1, deadlineMs: 1_500 });
  afterAll(() => pool.destroy());

  test('a compile queued behind others for longer than its deadline still runs to its end', async () => {
    const held = heldSources();
    const options = { reader: held.reader, compiler: 'flc', now: () => new Date() };
    // Three compiles, one after another on the one worker, each well within its own deadline
    // (0.9 s of 1.5 s); the fourth waits 2.7 s for the worker, then takes a moment.
    const ahead = ['a', 'b', 'c'].map((n) => pool.compile(held.config(n) as never, options));
    const last = pool.compile({ name: 'quick', sources: [{ source: 'https://quick.example/' }] } as never, options);
    for (const n of ['a', 'b', 'c']) {
      await settle(() => held.started.includes(`https://held.example/${n}`));
      await new Promise((r) => setTimeout(r, 900));
      held.release(n);
    }
    for (const compile of ahead) expect((await compile).lines).toContain('||held.example^');
    expect((await last).lines).toContain('||quick.example^');
  }, 30_000);
});

describe("a user's compiles at once are capped by their tier (maxConcurrentCompiles)", async () => {
  const pool = new CompilePool({ size: 1, deadlineMs: 60_000 });
  const store = await openStore(':memory:');
  const held = heldSources();
  const { request, ready } = testApp({ store, pool, makeReader: () => held.reader });
  afterAll(async () => {
    await pool.destroy();
    await store.close();
  });
  const compile = (name: string, token?: string) =>
    request('/api/compile', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ configuration: held.config(name) }),
    });

  test("a third compile is answered 429 naming the cap; another user's compile runs", async () => {
    await ready;
    const other = await store.createUser({
      email: 'other@example.org',
      role: 'user',
      tier: 'admin',
      password: { hash: 'x', salt: 'x', iterations: 1 },
    });
    const otherToken = (await startSession(store, other, Date.parse('2026-01-01T00:00:00Z'))).token;
    // Three compiles of the tester's: one holds the worker, two wait for it.
    const mine = ['one', 'two', 'three'].map((n) => compile(n));
    await settle(() => pool.health().waiting === 2);
    const fourth = await compile('four');
    expect(fourth.status).toBe(429);
    expect((await fourth.json()).detail).toBe(
      'At most 3 compiles at once for the admin tier (maxConcurrentCompiles): wait for one to end',
    );
    // Someone else is not refused, and not put behind all three: theirs takes the next turn.
    const theirs = compile('theirs', otherToken);
    await settle(() => pool.health().waiting === 3);
    for (const n of ['one', 'theirs', 'two', 'three']) {
      await settle(() => held.started.includes(`https://held.example/${n}`));
      held.release(n);
    }
    expect((await theirs).status).toBe(200);
    for (const res of await Promise.all(mine)) expect(res.status).toBe(200);
    // The share is given back: the tester compiles again.
    const again = compile('again');
    await settle(() => held.started.includes('https://held.example/again'));
    held.release('again');
    expect((await again).status).toBe(200);
  }, 30_000);

  test("a tier's features raise the cap", async () => {
    await store.updateConfigRow(
      'tiers',
      { tier_name: 'admin' },
      { features: { maxConcurrentCompiles: 4 } },
      new Date().toISOString(),
    );
    const before = held.started.length;
    const four = ['r1', 'r2', 'r3', 'r4'].map((n) => compile(n));
    await settle(() => held.started.length === before + 1 && pool.health().waiting === 3);
    const fifth = await compile('r5');
    expect(fifth.status).toBe(429);
    expect((await fifth.json()).detail).toMatch(/^At most 4 compiles at once for the admin tier/);
    for (const n of ['r1', 'r2', 'r3', 'r4']) {
      await settle(() => held.started.includes(`https://held.example/${n}`));
      held.release(n);
    }
    for (const res of await Promise.all(four)) expect(res.status).toBe(200);
  }, 30_000);
});

describe("a user's queued jobs are capped by their tier (maxQueuedJobs)", async () => {
  const store = await openStore(':memory:');
  // Sources that never arrive: every job stays queued or running.
  const reader = {
    resolve: (ref: string) => ref,
    read: () => new Promise<string>(() => undefined),
    close: async () => {},
  };
  const { request, ready } = testApp({ store, makeReader: () => reader });
  afterAll(() => store.close().catch(() => undefined));
  const submit = () =>
    request('/api/compile/async', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ configuration: { name: 'q', sources: [{ source: 'https://held.example/q' }] } }),
    });

  test('one more than the cap is answered 429 naming it', async () => {
    await ready;
    await store.updateConfigRow(
      'tiers',
      { tier_name: 'admin' },
      { features: { maxQueuedJobs: 3 } },
      new Date().toISOString(),
    );
    for (let i = 0; i < 3; i++) expect((await submit()).status).toBe(202);
    const refused = await submit();
    expect(refused.status).toBe(429);
    expect((await refused.json()).detail).toBe(
      'At most 3 queued jobs for the admin tier (maxQueuedJobs): wait for one to finish',
    );
  }, 30_000);
});
