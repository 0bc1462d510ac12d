import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ServerResponse } from 'node:http';
import { createApp } from '../../../src/server/app.js';
import type { AppDeps } from '../../../src/server/deps.js';
import { openStore } from '../../../src/server/store/open.js';
import { startSession } from '../../../src/server/auth/sessions.js';
import { SafeSourceReader } from '../../../src/node/safe-reader.js';
import { JobRunner, QUEUE_DEFAULTS } from '../../../src/server/queue/runner.js';
import { jobExecutor } from '../../../src/server/queue/execute.js';
import { startServer, type TestServer } from '../../support/http-server.js';
import { stamped, until } from '../../support/queue.js';

let lists: TestServer;
/** Responses of the slow source still open, and when each was closed by the other end. */
const slow: { res: ServerResponse; closedAt?: number }[] = [];

beforeAll(async () => {
  lists = await startServer((req, res) => {
    if (req.url?.startsWith('/slow')) {
      // Headers and one line, then nothing: the download is in flight until someone ends it.
      const entry: { res: ServerResponse; closedAt?: number } = { res };
      slow.push(entry);
      res.writeHead(200, { 'content-type': 'text/plain' }).write('||slow.example^\n');
      res.on('close', () => {
        entry.closedAt = Date.now();
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('||a.example^\n||b.example^\n||a.example^\n! c\n');
  });
});
afterAll(async () => {
  for (const s of slow) s.res.destroy();
  await lists.close();
});

async function makeApp(workers = 2, retentionMs = QUEUE_DEFAULTS.retentionMs) {
  const store = await openStore(':memory:');
  const deps: AppDeps = {
    store,
    version: '1',
    now: () => Date.now(),
    startedAt: Date.now(),
    makeReader: () =>
      new SafeSourceReader({ allowPrivate: true, timeoutMs: 30_000, retries: 0, maxBytes: 1 << 20, userAgent: 't' }),
  };
  const queue = new JobRunner(
    store.jobs,
    jobExecutor(deps),
    { ...QUEUE_DEFAULTS, workers, retentionMs, pollMs: 100 },
    deps.now,
  );
  const app = createApp({ ...deps, queue });
  const user = async (email: string) => {
    const u = await store.createUser({
      email,
      role: 'user',
      tier: 'pro',
      password: { hash: 'h', salt: 's', iterations: 1 },
    });
    const token = (await startSession(store, u, Date.now())).token;
    return (path: string, init: { method?: string; body?: unknown } = {}) =>
      app.request(path, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
  };
  return { app, store, queue, user };
}

const configuration = (...paths: string[]) => ({
  name: 'Queued',
  sources: paths.map((p) => ({ source: `${lists.url}${p}` })),
  transformations: ['Deduplicate', 'RemoveComments'],
});

describe('the job queue', () => {
  test('an async compile is queued, runs, and its result is what a synchronous compile answers', async () => {
    const { user, queue } = await makeApp();
    const as = await user('owner@example.org');
    const accepted = await as('/api/compile/async', { method: 'POST', body: { configuration: configuration('/a') } });
    expect(accepted.status).toBe(202);
    const { requestId, status, success } = await accepted.json();
    expect({ success, status }).toEqual({ success: true, status: 'queued' });
    const job = await until(
      async () => (await as(`/api/queue/results/${requestId}`)).json(),
      (j) => j.status === 'completed',
    );
    const sync = await (
      await as('/api/compile', { method: 'POST', body: { configuration: configuration('/a') } })
    ).json();
    expect(stamped(job.result.rules)).toEqual(stamped(sync.rules));
    expect(job.result.ruleCount).toBe(sync.ruleCount);
    expect(job.attempts).toBe(1);

    const stats = await (await as('/api/queue/stats')).json();
    expect(stats).toMatchObject({ pending: 0, completed: 1, failed: 0, cancelled: 0 });
    for (const k of ['totalProcessingTime', 'averageProcessingTime', 'processingRate', 'queueLag'])
      expect(typeof stats[k]).toBe('number');
    expect(stats.processingRate).toBe(1);
    await queue.stop();
  });

  test('a batch is one job with one result per request; history is newest first and paged', async () => {
    const { user, queue } = await makeApp();
    const as = await user('batch@example.org');
    const first = await (
      await as('/api/compile/batch/async', {
        method: 'POST',
        body: {
          requests: [
            { id: 'one', configuration: configuration('/a') },
            { id: 'two', configuration: { name: 'bad', sources: [] } },
          ],
        },
      })
    ).json();
    const second = await (
      await as('/api/compile/async', { method: 'POST', body: { configuration: configuration('/a') } })
    ).json();
    const job = await until(
      async () => (await as(`/api/queue/results/${first.requestId}`)).json(),
      (j) => j.status === 'completed',
    );
    expect(job.result.results.map((r: { id: string; success: boolean }) => [r.id, r.success])).toEqual([
      ['one', true],
      ['two', false],
    ]);
    const page = await (await as('/api/queue/history?limit=1')).json();
    expect(page.total).toBe(2);
    expect(page.jobs.map((j: { requestId: string }) => j.requestId)).toEqual([second.requestId]);
    const next = await (await as('/api/queue/history?limit=1&offset=1')).json();
    expect(next.jobs.map((j: { requestId: string }) => j.requestId)).toEqual([first.requestId]);
    await queue.stop();
  });

  test('another user gets 404 for a job that is not theirs, and cannot cancel it', async () => {
    const { user, queue } = await makeApp();
    const owner = await user('a@example.org');
    const other = await user('b@example.org');
    const { requestId } = await (
      await owner('/api/compile/async', { method: 'POST', body: { configuration: configuration('/a') } })
    ).json();
    expect((await other(`/api/queue/results/${requestId}`)).status).toBe(404);
    expect((await other(`/api/queue/results/no-such-job`)).status).toBe(404);
    expect((await other(`/api/queue/cancel/${requestId}`, { method: 'DELETE' })).status).toBe(404);
    expect((await (await other('/api/queue/history')).json()).total).toBe(0);
    expect((await other(`/api/queue/events/${requestId}`)).status).toBe(404);
    await until(
      async () => (await owner(`/api/queue/results/${requestId}`)).json(),
      (j) => j.status === 'completed',
    );
    await queue.stop();
  });

  test('a queued job cancelled never starts; a running one stops within a second and closes its download', async () => {
    const { user, queue } = await makeApp(1);
    const as = await user('cancel@example.org');
    const before = slow.length;
    const running = await (
      await as('/api/compile/async', { method: 'POST', body: { configuration: configuration('/slow-1') } })
    ).json();
    const waiting = await (
      await as('/api/compile/async', { method: 'POST', body: { configuration: configuration('/slow-2') } })
    ).json();
    await until(
      async () => slow.length,
      (n) => n > before,
    );
    const cancelQueued = await as(`/api/queue/cancel/${waiting.requestId}`, { method: 'DELETE' });
    expect(cancelQueued.status).toBe(200);
    expect((await cancelQueued.json()).status).toBe('cancelled');

    const asked = Date.now();
    const cancelRunning = await as(`/api/queue/cancel/${running.requestId}`, { method: 'DELETE' });
    expect((await cancelRunning.json()).status).toBe('cancelled');
    const download = slow[before];
    await until(
      async () => download.closedAt,
      (t) => t !== undefined,
      5_000,
    );
    expect(download.closedAt! - asked).toBeLessThan(1_000);
    await until(
      async () => queue.active,
      (n) => n === 0,
      5_000,
    );
    expect(queue.active).toBe(0);
    // The queued one never reached its source, even with the worker free again.
    await new Promise((r) => setTimeout(r, 500));
    expect(lists.requests.some((r) => r.path === '/slow-2')).toBe(false);
    const final = await (await as(`/api/queue/results/${running.requestId}`)).json();
    expect(final.status).toBe('cancelled');
    expect(final.result).toBeUndefined();
    expect((await as(`/api/queue/cancel/${running.requestId}`, { method: 'DELETE' })).status).toBe(409);
    await queue.stop();
  });

  test('a finished job and its result are removed once kept for the retention time', async () => {
    const { user, queue } = await makeApp(2, 300);
    const as = await user('retention@example.org');
    const { requestId } = await (
      await as('/api/compile/async', { method: 'POST', body: { configuration: configuration('/a') } })
    ).json();
    const done = await until(
      async () => (await as(`/api/queue/results/${requestId}`)).json(),
      (j) => j.status === 'completed',
    );
    expect(done.result.ruleCount).toBeGreaterThan(0);
    const gone = await until(
      async () => (await as(`/api/queue/results/${requestId}`)).status,
      (s) => s === 404,
      5_000,
    );
    expect(gone).toBe(404);
    expect((await (await as('/api/queue/history')).json()).total).toBe(0);
    await queue.stop();
  });

  test('a job can be watched as server-sent events, ending with its result', async () => {
    const { user, queue } = await makeApp();
    const as = await user('watch@example.org');
    const { requestId } = await (
      await as('/api/compile/async', { method: 'POST', body: { configuration: configuration('/a') } })
    ).json();
    const text = await (await as(`/api/queue/events/${requestId}`)).text();
    expect(text).toContain('event: status');
    expect(text).toMatch(/"status":"completed"/);
    await queue.stop();
  });
});
