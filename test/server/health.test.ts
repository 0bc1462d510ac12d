import { afterAll, describe, expect, test } from 'vitest';
import { CompilePool } from '../../src/node/compile-pool.js';
import { openStore } from '../../src/server/store/open.js';
import { testApp } from '../support/test-app.js';

/** `/api/health` from the real state of the store and the worker pool, each health value a row. */
let clock = Date.parse('2026-01-01T00:00:00Z');
const pool = new CompilePool({ size: 1, deadlineMs: 60_000 });
const store = await openStore(':memory:');
const { request } = testApp({ store, pool, now: () => clock, version: '9.9.9' });
const held = new AbortController();
afterAll(async () => {
  held.abort();
  await pool.destroy();
});

describe('GET /api/health', () => {
  const fresh = async () => {
    clock += 31_000;
    const res = await request('/api/health');
    return { status: res.status, cache: res.headers.get('cache-control'), body: await res.json() };
  };

  test('ok: the store answers and a worker runs a task; recorded with its status', async () => {
    const { status, body, cache } = await fresh();
    expect(status).toBe(200);
    expect(cache).toBe('public, max-age=30');
    expect(body).toMatchObject({
      status: 'ok',
      version: '9.9.9',
      checks: { store: { status: 'ok', engine: 'sqlite' }, workers: { status: 'ok', size: 1 } },
    });
    expect(await store.latestHealth()).toMatchObject({ status: 'ok', checkedAt: body.timestamp });
  });

  test('degraded (still 200): every worker has a task, a compile would wait', async () => {
    // A compile whose one source never arrives holds the pool's only worker.
    let reads = 0;
    const reader = {
      resolve: (ref: string) => ref,
      read: () => {
        reads += 1;
        return new Promise<string>(() => undefined);
      },
    };
    const compiling = pool
      .compile({ name: 'held', sources: [{ source: 'https://held.example/list.txt' }] } as never, {
        reader,
        compiler: 'flc',
        now: () => new Date(),
        signal: held.signal,
      })
      .catch(() => undefined);
    while (reads === 0) await new Promise((r) => setTimeout(r, 20));
    const { status, body, cache } = await fresh();
    expect(status).toBe(200);
    expect(body.status).toBe('degraded');
    expect(body.checks.workers).toMatchObject({ status: 'busy', size: 1, running: 1, waiting: 0 });
    expect(cache).toBe('public, max-age=5');
    held.abort();
    await compiling;
    expect((await fresh()).body).toMatchObject({ status: 'ok', checks: { workers: { status: 'ok', running: 0 } } });
  }, 20_000);

  test('unavailable (503): a pool that was closed, then a store that fails', async () => {
    await pool.destroy();
    const closed = await fresh();
    expect(closed.status).toBe(503);
    expect(closed.body).toMatchObject({ status: 'unavailable', checks: { workers: { status: 'closed' } } });
    await store.close();
    const gone = await fresh();
    expect(gone.status).toBe(503);
    expect(gone.body.checks.store).toMatchObject({ status: 'unavailable', error: 'the store failed' });
    expect(JSON.stringify(gone.body)).not.toMatch(/memory|sqlite:/i);
    // The public store check says that the store failed, not what its driver said.
    const smoke = await request('/api/health/db-smoke');
    expect(smoke.status).toBe(503);
    expect((await smoke.json()).detail).toBe('Store check failed: Unexpected server error');
  });
});
