import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../../../src/server/app.js';
import { openStore } from '../../../src/server/store/open.js';
import { startSession } from '../../../src/server/auth/sessions.js';
import { SafeSourceReader } from '../../../src/node/safe-reader.js';
import { ContainerCompiler } from '../../../src/node/container-compiler.js';
import { startServer, type TestServer } from '../../support/http-server.js';
import { stamped } from '../../support/queue.js';

let lists: TestServer;
// 400k distinct rules (~12 MB): parsed and deduplicated, far more than a 48 MB heap holds.
const HUGE = Array.from({ length: 400_000 }, (_, i) => `||host-${i}.tracker-${i % 977}.example^$third-party`).join(
  '\n',
);

beforeAll(async () => {
  lists = await startServer((req, res) => {
    const body = req.url === '/huge' ? HUGE : '||a.example^\n||b.example^\n||a.example^\n';
    res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
});
afterAll(() => lists.close());

async function makeApp(container: ContainerCompiler) {
  const store = await openStore(':memory:');
  const app = createApp({
    store,
    version: '1',
    now: () => Date.now(),
    startedAt: Date.now(),
    container,
    makeReader: () =>
      new SafeSourceReader({ allowPrivate: true, timeoutMs: 30_000, retries: 0, maxBytes: 64 << 20, userAgent: 't' }),
  });
  const user = await store.createUser({
    email: 'c@example.org',
    role: 'user',
    tier: 'free',
    password: { hash: 'h', salt: 's', iterations: 1 },
  });
  const token = (await startSession(store, user, Date.now())).token;
  const post = (path: string, configuration: unknown) =>
    app.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ configuration }),
    });
  return { app, post };
}

const configuration = (path: string) => ({
  name: 'Contained',
  sources: [{ source: `${lists.url}${path}` }],
  transformations: ['Deduplicate'],
});

describe('container compiles', () => {
  test('compile in a separate process and answer what POST /api/compile answers', async () => {
    const { app, post } = await makeApp(new ContainerCompiler({ memoryMb: 128, timeoutMs: 30_000, maxConcurrent: 2 }));
    const res = await post('/api/compile/container', configuration('/small'));
    expect(res.status).toBe(200);
    const body = await res.json();
    const sync = await (await post('/api/compile', configuration('/small'))).json();
    expect(stamped(body.rules)).toEqual(stamped(sync.rules));
    expect(body.container).toEqual({ memoryMb: 128, timeoutMs: 30_000, maxConcurrent: 2 });
    const status = await (await app.request('/api/container/status')).json();
    expect(status).toMatchObject({
      success: true,
      available: true,
      isolation: 'process',
      limits: { memoryMb: 128, timeoutMs: 30_000, maxConcurrent: 2 },
      running: 0,
    });
  }, 30_000);

  test('a compile over its memory limit fails with a clear error; /api/health answers throughout', async () => {
    const { app, post } = await makeApp(new ContainerCompiler({ memoryMb: 48, timeoutMs: 60_000, maxConcurrent: 2 }));
    let done = false;
    const slowest: number[] = [];
    const probing = (async () => {
      while (!done) {
        const started = performance.now();
        const res = await app.request('/api/health');
        expect(res.status).toBe(200);
        slowest.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const asked = performance.now();
    const res = await post('/api/compile/container', configuration('/huge'));
    const ran = performance.now() - asked;
    done = true;
    await probing;
    expect(res.status).toBe(422);
    expect((await res.json()).error).toBe(
      'The container compilation ran out of memory (its limit is 48 MB) and was stopped',
    );
    expect(slowest.length).toBeGreaterThan(5);
    // A compile on the main thread would hold a probe for its whole run; none takes a quarter of it.
    expect(Math.max(...slowest)).toBeLessThan(ran / 4);
    // The server carries on: the next compile works.
    expect((await post('/api/compile/container', configuration('/small'))).status).toBe(200);
  }, 60_000);

  test('a compile past its time limit is stopped and says so', async () => {
    const { post } = await makeApp(new ContainerCompiler({ memoryMb: 256, timeoutMs: 300, maxConcurrent: 1 }));
    const res = await post('/api/compile/container', configuration('/huge'));
    expect(res.status).toBe(422);
    expect((await res.json()).error).toBe(
      'The container compilation took longer than its deadline of 300 ms and was stopped',
    );
  }, 30_000);
});
