import { afterAll, describe, expect, test } from 'vitest';
import { CompilePool } from '../../src/node/compile-pool.js';
import { openStore } from '../../src/server/store/open.js';
import { testApp } from '../support/test-app.js';

/**
 * A user's share of the worker pool (their tier's maxConcurrentCompiles) counts every task of
 * theirs, not only compiles: walks, parses and list validations take a worker as long as a
 * compile. A task whose client went away leaves the queue and gives its share back.
 */

/** A compile whose one source arrives when the test calls `release`. */
function heldCompile() {
  let release: () => void = () => undefined;
  let started = false;
  const reader = {
    resolve: (ref: string) => ref,
    read: () => {
      started = true;
      return new Promise<string>((done) => {
        release = () => done('||held.example^\n');
      });
    },
    close: async () => undefined,
  };
  return { reader, release: () => release(), started: () => started };
}
const settle = async (until: () => boolean) => {
  while (!until()) await new Promise((r) => setTimeout(r, 10));
};
const json = (body: unknown, signal?: AbortSignal) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
  ...(signal ? { signal } : {}),
});
const list = { text: Array.from({ length: 50 }, (_, i) => `||ad${i}.example^`).join('\n') };

describe('the pool share counts every task of a user', async () => {
  const pool = new CompilePool({ size: 1 });
  const store = await openStore(':memory:');
  const held = heldCompile();
  const { request, ready } = testApp({ store, pool, makeReader: () => held.reader });
  afterAll(async () => {
    await pool.destroy();
    await store.close();
  });

  test('a compile and two validations fill a share of 3: a walk, a parse, a rule match are refused 429', async () => {
    await ready;
    const compile = request(
      '/api/compile',
      json({ configuration: { name: 'h', sources: [{ source: 'https://h/' }] } }),
    );
    await settle(held.started);
    const queued = [request('/api/validate', json(list)), request('/api/validate', json(list))];
    await settle(() => pool.health().waiting === 2);
    const answers: Record<string, number> = {};
    const fourth = {
      walk: () => request('/api/ast/walk', json(list)),
      parse: () => request('/api/ast/parse', json({ rules: ['||a.example^'] })),
      match: () => request('/api/validate-rule', json({ rule: '/ab+c/', testUrl: 'https://abbc.example/' })),
      trpc: () => request('/api/trpc/ast.walk', json(list)),
    };
    for (const [name, send] of Object.entries(fourth)) {
      // Refused at once, or (the share not counting it) queued behind the held compile.
      const sent = send().then((res) => {
        answers[name] = res.status;
        return res;
      });
      await settle(() => answers[name] !== undefined || pool.health().waiting === 3);
      expect(answers[name], name).toBe(429);
      const body = await (await sent).json();
      const detail = JSON.stringify(body);
      expect(detail).toMatch(/At most 3 tasks at once for the admin tier \(maxConcurrentCompiles, compiles included\)/);
    }
    held.release();
    expect((await compile).status).toBe(200);
    for (const res of await Promise.all(queued)) expect(res.status).toBe(200);
    // The share is given back: three walks at once are taken.
    const three = await Promise.all([1, 2, 3].map(() => request('/api/ast/walk', json(list))));
    expect(three.map((r) => r.status)).toEqual([200, 200, 200]);
  }, 30_000);

  test('a queued validation whose client went away answers at once and gives its share back', async () => {
    const again = heldCompile();
    held.reader.read = again.reader.read;
    const compile = request(
      '/api/compile',
      json({ configuration: { name: 'g', sources: [{ source: 'https://g/' }] } }),
    );
    await settle(again.started);
    const gone = [new AbortController(), new AbortController()];
    const waiting = gone.map((c) => request('/api/validate', json(list, c.signal)).catch((e: Error) => e));
    await settle(() => pool.health().waiting === 2);
    for (const c of gone) c.abort();
    // Without the request's signal these would wait for the held compile, the test's timeout failing.
    for (const outcome of await Promise.all(waiting)) expect(outcome).toBeDefined();
    // Both shares are back, and both places in the pool's line, while the compile still holds the
    // worker: two more fit beside it, and they are all that wait.
    expect(pool.health().waiting).toBe(0);
    const statuses: number[] = [];
    const next = [1, 2].map(() => request('/api/validate', json(list)).then((r) => statuses.push(r.status)));
    await settle(() => statuses.length > 0 || pool.health().waiting >= 2);
    expect(pool.health().waiting).toBe(2);
    expect(statuses).toEqual([]);
    again.release();
    expect((await compile).status).toBe(200);
    await Promise.all(next);
    expect(statuses).toEqual([200, 200]);
  }, 20_000);
});
