import { describe, expect, test } from 'vitest';
import { ENGINES, storesFor } from '../support/stores.js';

const t = (s: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + s * 1000).toISOString();
const A = { owner: 'process-a', until: t(10) };
const B = { owner: 'process-b', until: t(30) };

/** The job table's transitions, on each engine: only those of docs/server.md can happen. */
describe.each(ENGINES)('$engine job table', (engine) => {
  const fresh = storesFor(engine);
  const job = (id: string, at = t(0)) => ({
    id,
    ownerId: 'u1',
    kind: 'compile' as const,
    payload: { n: id },
    createdAt: at,
  });
  const end = (state: 'completed' | 'failed', s: number, extra: { result?: unknown; error?: string } = {}) => ({
    state,
    at: t(s),
    durationMs: 20,
    ...extra,
  });

  test('a job is claimed once, oldest first; a lapsed lease is taken again, its old holder cannot end it', async () => {
    const store = await fresh();
    await store.jobs.enqueue(job('j2', t(1)));
    await store.jobs.enqueue(job('j1', t(0)));
    expect(await store.jobs.claim(A, t(2))).toMatchObject({
      id: 'j1',
      state: 'running',
      attempts: 1,
      payload: { n: 'j1' },
    });
    expect((await store.jobs.claim(A, t(2)))?.id).toBe('j2');
    expect(await store.jobs.claim(A, t(2))).toBeNull();
    // A's lease ends at t(10); at t(11) B takes j1 again.
    expect(await store.jobs.claim(B, t(11))).toMatchObject({ id: 'j1', attempts: 2 });
    expect(await store.jobs.renew(['j1', 'j2'], { owner: 'process-a', until: t(40) })).toEqual(['j1']);
    expect(await store.jobs.finish('j1', 'process-a', end('completed', 12, { result: 'late' }))).toBe(false);
    expect(await store.jobs.finish('j1', 'process-b', end('completed', 13, { result: { ok: 1 } }))).toBe(true);
    // Ended once: a second end is refused and the first result stays.
    expect(await store.jobs.finish('j1', 'process-b', end('failed', 14, { error: 'x' }))).toBe(false);
    expect(await store.jobs.job('j1')).toMatchObject({ state: 'completed', result: { ok: 1 }, finishedAt: t(13) });
  });

  test('round-robin across owners: a job submitted after 20 of another owner runs before most of them', async () => {
    const store = await fresh();
    for (let n = 0; n < 20; n += 1) await store.jobs.enqueue({ ...job(`a${n}`, t(n / 100)), ownerId: 'heavy' });
    // Three workers take heavy's first three; then light submits one; each worker takes the next
    // job when its last one ends.
    const lease = { owner: 'p', until: t(100) };
    const running = [];
    for (let w = 0; w < 3; w += 1) running.push(await store.jobs.claim(lease, t(2)));
    await store.jobs.enqueue({ ...job('b0', t(2)), ownerId: 'light' });
    const order = running.map((j) => j?.id);
    for (let step = 0; running.length > 0; step += 1) {
      const done = running.shift();
      if (done) await store.jobs.finish(done.id, 'p', end('completed', 3 + step));
      const next = await store.jobs.claim(lease, t(3 + step));
      if (next) {
        running.push(next);
        order.push(next.id);
      }
    }
    expect(order).toHaveLength(21);
    // light's one job is the next to run, not the 21st.
    expect(order.indexOf('b0')).toBe(3);
    // Within one owner, oldest first.
    expect(order.filter((id) => id !== 'b0')).toEqual(Array.from({ length: 20 }, (_, n) => `a${n}`));
  });

  test('cancel: a queued job is never claimed; a running one loses its lease; a finished one stays', async () => {
    const store = await fresh();
    await store.jobs.enqueue(job('q'));
    expect(await store.jobs.cancel('q', 'someone-else', t(1))).toBe(false);
    expect(await store.jobs.cancel('q', 'u1', t(1))).toBe(true);
    expect(await store.jobs.claim(A, t(100))).toBeNull();
    await store.jobs.enqueue(job('r'));
    await store.jobs.claim(A, t(2));
    expect(await store.jobs.cancel('r', null, t(3))).toBe(true);
    expect(await store.jobs.renew(['r'], A)).toEqual(['r']);
    expect(await store.jobs.finish('r', 'process-a', end('completed', 4, { result: 1 }))).toBe(false);
    expect(await store.jobs.cancel('r', null, t(5))).toBe(false);
    expect(await store.jobs.job('r')).toMatchObject({ state: 'cancelled', result: null });
  });

  test('release puts a running job back; statistics, history, and the sweep of old results', async () => {
    const store = await fresh();
    for (const [i, id] of ['a', 'b', 'c'].entries()) await store.jobs.enqueue(job(id, t(i)));
    await store.jobs.claim(A, t(5));
    await store.jobs.release(['a'], 'process-a');
    expect(await store.jobs.job('a')).toMatchObject({ state: 'queued', attempts: 1 });
    await store.jobs.claim(A, t(6));
    await store.jobs.finish('a', 'process-a', end('completed', 7, { result: 1 }));
    await store.jobs.claim(A, t(8));
    await store.jobs.finish('b', 'process-a', end('failed', 9, { error: 'boom' }));
    // b finished within the minute before t(68), a did not; c has waited since t(2).
    expect(await store.jobs.stats(Date.parse(t(68)))).toEqual({
      pending: 1,
      completed: 1,
      failed: 1,
      cancelled: 0,
      totalProcessingTime: 40,
      averageProcessingTime: 20,
      processingRate: 1,
      queueLag: 66_000,
    });
    const page = await store.jobs.history('u1', 2, 0);
    expect(page.total).toBe(3);
    expect(page.jobs.map((j) => j.id)).toEqual(['c', 'b']);
    expect(await store.jobs.sweep(t(8))).toBe(1);
    expect(await store.jobs.job('a')).toBeNull();
    expect(await store.jobs.job('b')).not.toBeNull();
  });
});
