import { describe, expect, test } from 'vitest';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { createApp } from '../../src/server/app.js';
import type { AppDeps } from '../../src/server/deps.js';
import type { AppRouter } from '../../src/server/trpc/router.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { issueApiKey } from '../../src/server/auth/identity.js';
import { memoryReader } from '../support/memory-reader.js';
import { BODY_LIMITS } from '../../src/server/routes/rules.js';

let clock = Date.parse('2026-07-01T00:00:00Z');
const LIST = 'https://lists.example/a.txt';
async function makeApp(extra: Partial<AppDeps> = {}) {
  const store = await openStore(':memory:');
  const app = createApp({
    store,
    version: '1.2.3',
    now: () => clock,
    startedAt: clock,
    makeReader: () => ({
      ...memoryReader({ [LIST]: '||ads.example^\n||ads.example^\n! comment\nsub.ads.example\n||tracker.example^' }),
      close: async () => undefined,
    }),
    ...extra,
  });
  const password = { hash: 'h', salt: 's', iterations: 1 };
  const free = await store.createUser({ email: 'free@example.org', role: 'user', tier: 'free', password });
  return { app, store, free, token: (await startSession(store, free, clock)).token };
}
const { app, store, free, token } = await makeApp();

function client(bearer?: string, target = app) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: 'http://flc.test/api/trpc',
        fetch: async (url, init) => target.request(String(url), init as RequestInit),
        headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
      }),
    ],
  });
}
const rest = (path: string, body: unknown, bearer = token) =>
  app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify(body),
  });
const raw = (path: string, body: string, headers: Record<string, string> = {}) =>
  app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body,
  });
async function failure(call: Promise<unknown>) {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCClientError);
  const e = err as TRPCClientError<AppRouter>;
  return { message: e.message, code: e.data?.code, status: e.data?.httpStatus, data: e.data };
}
const configuration = {
  name: 'Over tRPC',
  sources: [{ source: LIST }],
  transformations: ['Deduplicate', 'RemoveComments'],
};
const withoutDuration = (o: object) => ({ ...o, duration: 'x' });

describe('/api/trpc with a tRPC client', () => {
  test('anonymous callers are refused on compile (401 UNAUTHORIZED), as on POST /api/compile', async () => {
    clock += 61_000;
    expect(await failure(client().compile.mutate({ configuration }))).toMatchObject({
      code: 'UNAUTHORIZED',
      status: 401,
      message: 'Authentication required',
    });
  });

  test("a free user's compile works and equals the REST answer", async () => {
    clock += 61_000;
    const viaTrpc = await client(token).compile.mutate({ configuration });
    const viaRest = await (await rest('/api/compile', { configuration })).json();
    expect(viaTrpc.success).toBe(true);
    expect(viaTrpc.rules).toContain('||tracker.example^');
    const stable = (o: typeof viaTrpc) => ({ ...o, metrics: { ...o.metrics, totalDurationMs: 0 } });
    expect(stable(viaTrpc)).toEqual(stable(viaRest));
  });

  test('validateRule, ast.parse and ast.walk answer as their REST routes', async () => {
    clock += 61_000;
    const trpc = client(token);
    for (const input of [
      { rule: '||example.org^$third-party' },
      { rule: '##.ad', strict: true },
      { rule: '||a^$bogus' },
    ])
      expect(withoutDuration(await trpc.validateRule.mutate(input))).toEqual(
        withoutDuration(await (await rest('/api/validate-rule', input)).json()),
      );
    const rules = { rules: ['||a.example^', 'example.org##.banner'] };
    expect(withoutDuration(await trpc.ast.parse.mutate(rules))).toEqual(
      withoutDuration(await (await rest('/api/ast/parse', rules)).json()),
    );
    const walk = { rules: ['||a.example^$domain=b.example'], maxDepth: 3 };
    expect(withoutDuration(await trpc.ast.walk.mutate(walk))).toEqual(
      withoutDuration(await (await rest('/api/ast/walk', walk)).json()),
    );
  });

  test("an API key needs the procedure's scope, as on REST", async () => {
    clock += 61_000;
    const key = (await issueApiKey(store, free, { name: 'rules only', scopes: ['rules'] }, clock)).text;
    expect((await client(key).validateRule.mutate({ rule: '||a^' })).valid).toBe(true);
    expect(await failure(client(key).compile.mutate({ configuration }))).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
      message: 'API key missing required scope: compile',
    });
  });

  test("an endpoint override of a procedure's REST twin applies to the procedure too", async () => {
    const own = await makeApp();
    const at = new Date(clock).toISOString();
    await own.store.createConfigRow(
      'endpoints',
      { path_pattern: '/api/validate-rule', method: 'POST', required_tier: 'pro' },
      at,
    );
    await own.store.createConfigRow(
      'endpoints',
      { path_pattern: '/api/rules/*', method: '*', required_tier: 'pro' },
      at,
    );
    const tRPC = client(own.token, own.app);
    const refused = { code: 'FORBIDDEN', status: 403 };
    expect(await failure(tRPC.validateRule.mutate({ rule: '||a^' }))).toMatchObject(refused);
    expect(await failure(tRPC.rules.get.mutate({ id: 'any' }))).toMatchObject(refused);
    // Procedures whose twins no override reaches answer as before.
    expect(await tRPC.ast.parse.mutate({ rules: ['||a^'] })).toBeTruthy();
  });

  test("a procedure needs what both its own path's overrides and its twin's ask, whatever their lengths", async () => {
    const own = await makeApp();
    const at = new Date(clock).toISOString();
    const override = (path_pattern: string, method: string, row: Record<string, unknown>) =>
      own.store.createConfigRow('endpoints', { path_pattern, method, ...row }, at);
    await override('/api/trpc/*', '*', { required_tier: 'pro' });
    await override('/api/validate-rule', 'POST', { is_public: 1 });
    await override('/api/rules/*', '*', { required_tier: 'free' });
    await override('/api/*', '*', { required_tier: 'free' });
    await override('/api/compile', 'POST', { required_tier: 'pro' });
    const tRPC = client(own.token, own.app);
    const refused = { code: 'FORBIDDEN', status: 403 };
    expect(await failure(tRPC.validateRule.mutate({ rule: '||a^' }))).toMatchObject(refused);
    expect(await failure(tRPC.rules.list.mutate({}))).toMatchObject(refused);
    expect(await failure(tRPC.compile.mutate({ configuration }))).toMatchObject(refused);
    const asFree = (path: string, body: unknown) =>
      own.app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${own.token}` },
        body: JSON.stringify(body),
      });
    expect((await asFree('/api/validate-rule', { rule: '||a^' })).status).toBe(200);
  });

  test("a twin's override only ever adds: /api/validate-rule made public leaves the procedure signed-in", async () => {
    const own = await makeApp();
    const at = new Date(clock).toISOString();
    await own.store.createConfigRow(
      'endpoints',
      { path_pattern: '/api/validate-rule', method: 'POST', is_public: 1 },
      at,
    );
    const anonymous = client(undefined, own.app);
    expect(await failure(anonymous.validateRule.mutate({ rule: '||a^' }))).toMatchObject({ code: 'UNAUTHORIZED' });
    const rest = await own.app.request('/api/validate-rule', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rule: '||a^' }),
    });
    expect(rest.status).toBe(200);
    // A prefix reaching the procedure's own path does not undo its twin's tightening.
    await own.store.createConfigRow('endpoints', { path_pattern: '/api/*', method: '*', required_tier: 'free' }, at);
    await own.store.createConfigRow(
      'endpoints',
      { path_pattern: '/api/compile', method: 'POST', required_tier: 'pro' },
      at,
    );
    expect(await failure(client(own.token, own.app).compile.mutate({ configuration }))).toMatchObject({
      code: 'FORBIDDEN',
    });
    // Written past the endpoint route's check (it refuses a placeholder), a row naming a parameter reaches nothing.
    await own.store.createConfigRow(
      'endpoints',
      { path_pattern: '/api/rules/:id', method: '*', required_tier: 'pro' },
      at,
    );
    expect(await failure(client(own.token, own.app).rules.get.mutate({ id: 'any' }))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  test('the WebSocket compile has a twin too: overrides of /api/ws/compile reach /ws/compile', async () => {
    const own = await makeApp();
    const at = new Date(clock).toISOString();
    await own.store.createConfigRow(
      'endpoints',
      { path_pattern: '/api/ws/compile', method: 'GET', required_scopes: ['admin'] },
      at,
    );
    const key = (await issueApiKey(own.store, own.free, { name: 'compile only', scopes: ['compile'] }, clock)).text;
    for (const path of ['/api/ws/compile', '/ws/compile']) {
      const res = await own.app.request(path, {
        headers: { authorization: `Bearer ${key}`, upgrade: 'websocket', connection: 'upgrade' },
      });
      expect(res.status, path).toBe(403);
    }
  });

  test('input failing the schema: BAD_REQUEST in the REST wording; a bad configuration: 422 with paths', async () => {
    clock += 61_000;
    const restAnswer = await (await rest('/api/validate-rule', { rule: 5 })).json();
    expect(await failure(client(token).validateRule.mutate({ rule: 5 } as unknown as { rule: string }))).toMatchObject({
      code: 'BAD_REQUEST',
      status: 400,
      message: restAnswer.error,
    });
    const bad = await failure(client(token).compile.mutate({ configuration: { name: 'x', sources: [] } }));
    expect(bad).toMatchObject({ code: 'UNPROCESSABLE_CONTENT', status: 422 });
    expect(bad.data).toMatchObject({ errors: [expect.objectContaining({ path: 'sources' })] });
    expect(JSON.stringify(bad.data)).not.toContain('stack');
  });

  test("a failing source is the REST route's status with its message", async () => {
    clock += 61_000;
    const broken = { ...configuration, sources: [{ source: 'https://lists.example/missing.txt' }] };
    const viaRest = await rest('/api/compile', { configuration: broken });
    expect(viaRest.status).toBe(502);
    expect(await failure(client(token).compile.mutate({ configuration: broken }))).toMatchObject({
      code: 'BAD_GATEWAY',
      status: 502,
      message: (await viaRest.json()).detail,
    });
  });

  test('the per-tier rate limit counts tRPC calls (free: 60 a minute)', async () => {
    // A user of its own: the limiter counts in real minutes, so the calls would limit the other tests.
    const password = { hash: 'h', salt: 's', iterations: 1 };
    const busy = await store.createUser({ email: 'busy@example.org', role: 'user', tier: 'free', password });
    const trpc = client((await startSession(store, busy, clock)).token);
    for (let i = 0; i < 60; i += 1) await trpc.validateRule.mutate({ rule: '||a^' });
    const limited = await failure(trpc.validateRule.mutate({ rule: '||a^' }));
    expect(limited).toMatchObject({ code: 'TOO_MANY_REQUESTS', status: 429 });
  });

  test('the bot challenge applies to compile and ast.walk when configured', async () => {
    const guarded = await makeApp({ challenge: { secretKey: 's', verifyUrl: 'http://127.0.0.1:9/never' } });
    const trpc = client(guarded.token, guarded.app);
    expect(await failure(trpc.compile.mutate({ configuration }))).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    expect(await failure(trpc.ast.walk.mutate({ rules: ['a'] }))).toMatchObject({ status: 403 });
    expect((await trpc.validateRule.mutate({ rule: '||a^' })).success).toBe(true);
    // tRPC would also answer these spellings, which the exact-path challenge gate never sees.
    for (const path of ['/api/trpc/ast.walk/', '/api/trpc/ast.walk//', '/api/trpc/compile/']) {
      const res = await guarded.app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${guarded.token}` },
        body: JSON.stringify(path.includes('compile') ? { configuration } : { rules: ['a'] }),
      });
      expect(res.status, path).toBe(404);
    }
  });
});

describe('/api/trpc hostile input', () => {
  test.each([
    ['malformed JSON', '/api/trpc/validateRule', '{"rule": ', 400],
    ['a body over the limit', '/api/trpc/validateRule', JSON.stringify({ rule: 'a'.repeat(BODY_LIMITS.rule) }), 413],
    ['a batch call', '/api/trpc/validateRule,compile?batch=1', '{"0":{"rule":"a"},"1":{}}', 404],
    ['a batch call of one procedure', '/api/trpc/validateRule?batch=1', '{"0":{"rule":"a"}}', 400],
    ['an unknown procedure', '/api/trpc/nope', '{}', 404],
    ['an unknown procedure over 64 KiB', '/api/trpc/nope', JSON.stringify({ a: 'a'.repeat(BODY_LIMITS.rule) }), 413],
    ['a non-object input', '/api/trpc/compile', '[1,2]', 400],
  ])('%s: %i tRPC error, never 5xx', async (_name, path, body, status) => {
    clock += 61_000;
    const res = await raw(path, body);
    expect(res.status).toBe(status);
    const answer = await res.json();
    expect(answer.error).toMatchObject({ data: { httpStatus: status } });
    expect(typeof answer.error.message).toBe('string');
  });

  test('a GET (query) on a procedure is refused, so inputs never travel in URLs', async () => {
    clock += 61_000;
    const res = await app.request(`/api/trpc/validateRule?input=${encodeURIComponent('{"rule":"a"}')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
