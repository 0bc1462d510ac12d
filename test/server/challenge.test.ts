import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testApp } from '../support/test-app.js';
import { SafeSourceReader } from '../../src/node/safe-reader.js';
import { startChallengeVerifier } from '../support/http-server.js';
import { describedRoutes } from '../../src/server/routing/route.js';

let verifier: Awaited<ReturnType<typeof startChallengeVerifier>>;
let request: ReturnType<typeof testApp>['request'];
let ready: ReturnType<typeof testApp>['ready'];

beforeAll(async () => {
  verifier = await startChallengeVerifier('s3cret');
  ({ request, ready } = testApp({
    version: '1',
    now: () => Date.now(),
    startedAt: 0,
    makeReader: () =>
      new SafeSourceReader({ allowPrivate: false, timeoutMs: 1000, retries: 0, maxBytes: 1024, userAgent: 't' }),
    challenge: { secretKey: 's3cret', siteKey: 'public-key', verifyUrl: `${verifier.url}/siteverify` },
    browserDsn: 'https://public:legacy-secret@errors.example/prefix/1?x=y',
  }));
});
afterAll(() => verifier.close());

const post = (path: string, body: unknown) =>
  request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('bot-challenge verification', () => {
  test.each([
    '/api/ast/walk',
    '/api/configuration/validate',
    '/api/configuration/resolve',
    '/api/compile',
    '/api/compile/batch',
    '/api/compile/stream',
    '/api/explain',
  ])('%s: 403 without or with a bad token', async (path) => {
    expect((await post(path, { rules: ['a'] })).status).toBe(403);
    const bad = await post(path, { rules: ['a'], challengeToken: 'bad' });
    expect(bad.status).toBe(403);
    expect(await bad.json()).toMatchObject({ status: 403, detail: 'Bot challenge verification failed' });
  });

  test('every route that starts a compile asks for it: each POST and the WebSocket', async () => {
    const routes = describedRoutes((await ready).app);
    const compiles = (access: unknown) => typeof access === 'object' && access !== null && 'scope' in access;
    const starts = routes.filter(
      (r) => compiles(r.access) && (r.access as { scope?: string }).scope === 'compile' && r.method !== 'GET',
    );
    const sockets = routes.filter((r) => r.transport === 'websocket');
    expect(starts.map((r) => r.path)).toEqual(expect.arrayContaining(['/api/compile', '/api/workflow/compile']));
    expect(sockets.map((r) => r.path)).toEqual(['/api/ws/compile', '/ws/compile']);
    const unguarded = [...starts.filter((r) => r.method !== 'DELETE'), ...sockets].filter((r) => !r.challenge);
    expect(unguarded.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    // And each POST that asks for it refuses a request without a token, whatever else it needs.
    for (const r of routes.filter((d) => d.challenge && d.method === 'POST')) {
      const res = await post(r.path.replaceAll(/:\w+/g, 'x'), { configuration: {} });
      expect(res.status, `${r.method} ${r.path}`).toBe(403);
    }
  });

  test('a good token passes, under either field name', async () => {
    expect((await post('/api/ast/walk', { rules: ['||a^'], challengeToken: 'good' })).status).toBe(200);
    expect((await post('/api/configuration/validate', { configuration: {}, turnstileToken: 'good' })).status).toBe(200);
    expect(verifier.forms.at(-1)).toContain('secret=s3cret');
  });

  test('validate-rule stays open; the browser config routes say what is configured', async () => {
    expect((await post('/api/validate-rule', { rule: '||a^' })).status).toBe(200);
    expect(await (await request('/api/turnstile-config')).json()).toEqual({
      success: true,
      enabled: true,
      siteKey: 'public-key',
    });
    // A legacy DSN's secret key (and any query) never reaches browsers.
    expect(await (await request('/api/sentry-config')).json()).toEqual({
      success: true,
      enabled: true,
      dsn: 'https://public@errors.example/prefix/1',
    });
    expect(await (await request('/api/container/status')).json()).toMatchObject({
      status: 'running',
      containerized: false,
    });
  });
});
