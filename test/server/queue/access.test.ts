import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../../../src/server/app.js';
import { openStore } from '../../../src/server/store/open.js';
import { startSession } from '../../../src/server/auth/sessions.js';
import { issueApiKey } from '../../../src/server/auth/identity.js';
import type { User } from '../../../src/server/store/accounts.js';
import { SafeSourceReader } from '../../../src/node/safe-reader.js';
import { startServer, type TestServer } from '../../support/http-server.js';
import { until } from '../../support/queue.js';

/**
 * Who may use the queue, workflow and container routes, and that nobody sees another's jobs:
 * anonymous, free, pro, an administrator, and a pro user's API key with and without `compile`.
 */
let lists: TestServer;
beforeAll(async () => {
  lists = await startServer((_req, res) => res.writeHead(200).end('||a.example^\n'));
});
afterAll(() => lists.close());

const store = await openStore(':memory:');
const app = createApp({
  store,
  version: '1',
  now: () => Date.now(),
  startedAt: Date.now(),
  makeReader: () =>
    new SafeSourceReader({ allowPrivate: true, timeoutMs: 5_000, retries: 0, maxBytes: 1 << 20, userAgent: 't' }),
});
// Anonymous refusals count against the address ('unknown' for every in-process request): lifted
// here, where the anonymous caller is refused route after route.
await store.updateConfigRow('tiers', { tier_name: 'anonymous' }, { rate_limit: 0 }, new Date().toISOString());
const password = { hash: 'h', salt: 's', iterations: 1 };
const make = (email: string, role: 'admin' | 'user', tier: string) => store.createUser({ email, role, tier, password });
const free = await make('free@example.org', 'user', 'free');
const pro = await make('pro@example.org', 'user', 'pro');
const pro2 = await make('pro2@example.org', 'user', 'pro');
const admin = await make('admin@example.org', 'admin', 'admin');
const session = async (u: User) => (await startSession(store, u, Date.now())).token;
const key = async (u: User, scopes: string[]) => (await issueApiKey(store, u, { name: 'k', scopes }, Date.now())).text;

const CALLERS: Record<string, string | undefined> = {
  anonymous: undefined,
  free: await session(free),
  pro: await session(pro),
  'another pro': await session(pro2),
  admin: await session(admin),
  'pro key with compile': await key(pro, ['compile']),
  'pro key without compile': await key(pro, ['rules']),
};

async function send(caller: string, method: string, path: string, body?: unknown) {
  const token = CALLERS[caller];
  const res = await app.request(path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: res.headers.get('content-type')?.includes('json') ? await res.json() : null };
}

const config = () => ({ configuration: { name: 'A', sources: [{ source: `${lists.url}/a` }] } });

describe('queue, workflow and container access', () => {
  test('each caller against each route', async () => {
    // Jobs of the pro user, to read, watch and cancel.
    const job = (await send('pro', 'POST', '/api/compile/async', config())).json.requestId as string;
    const workflow = (await send('pro', 'POST', '/api/workflow/compile', config())).json.workflowId as string;
    await until(
      async () => (await send('pro', 'GET', `/api/workflow/${workflow}`)).json.status,
      (s) => s === 'completed',
    );
    await until(
      async () => (await send('pro', 'GET', `/api/queue/results/${job}`)).json.status,
      (s) => s === 'completed',
    );
    const routes: [string, string, () => unknown][] = [
      ['POST', '/api/compile/async', config],
      ['POST', '/api/compile/batch/async', () => ({ requests: [{ id: 'x', ...config() }] })],
      ['POST', '/api/workflow/compile', config],
      ['GET', `/api/workflow/${workflow}`, () => undefined],
      ['GET', `/api/queue/results/${job}`, () => undefined],
      ['GET', `/api/queue/events/${job}`, () => undefined],
      ['GET', '/api/queue/stats', () => undefined],
      ['GET', '/api/queue/history', () => undefined],
      ['POST', '/api/compile/container', config],
      ['GET', '/api/container/status', () => undefined],
      ['DELETE', `/api/queue/cancel/${job}`, () => undefined],
    ];
    // [async, batch, workflow POST, workflow GET, results, events, stats, history, container, status, cancel]
    const expected: Record<string, number[]> = {
      anonymous: [403, 403, 403, 403, 401, 401, 401, 401, 401, 200, 401],
      free: [403, 403, 403, 403, 404, 404, 200, 200, 200, 200, 404],
      pro: [202, 202, 202, 200, 200, 200, 200, 200, 200, 200, 409],
      'another pro': [202, 202, 202, 404, 404, 404, 200, 200, 200, 200, 404],
      admin: [202, 202, 202, 404, 404, 404, 200, 200, 200, 200, 404],
      'pro key with compile': [202, 202, 202, 200, 200, 200, 200, 200, 200, 200, 409],
      'pro key without compile': [403, 403, 403, 403, 403, 403, 403, 403, 403, 200, 403],
    };
    const got: Record<string, number[]> = {};
    for (const caller of Object.keys(expected)) {
      got[caller] = [];
      for (const [method, path, body] of routes) got[caller].push((await send(caller, method, path, body())).status);
    }
    expect(got).toEqual(expected);
  }, 60_000);

  test("one user never sees another's job; an administrator's history may list everyone's", async () => {
    const mine = (await send('pro', 'POST', '/api/compile/async', config())).json.requestId as string;
    const theirs = await send('another pro', 'GET', '/api/queue/history?limit=100');
    expect(theirs.json.jobs.map((j: { requestId: string }) => j.requestId)).not.toContain(mine);
    const own = await send('pro', 'GET', '/api/queue/history?limit=100');
    expect(own.json.jobs.map((j: { requestId: string }) => j.requestId)).toContain(mine);
    // `all=true` is an administrator's only.
    const notAll = await send('another pro', 'GET', '/api/queue/history?limit=100&all=true');
    expect(notAll.json.jobs.map((j: { requestId: string }) => j.requestId)).not.toContain(mine);
    const everyone = await send('admin', 'GET', '/api/queue/history?limit=100&all=true');
    expect(everyone.json.jobs).toContainEqual(expect.objectContaining({ requestId: mine, ownerId: pro.id }));
    // A key of the owner sees the owner's job.
    expect((await send('pro key with compile', 'GET', `/api/queue/results/${mine}`)).status).toBe(200);
  });
});
