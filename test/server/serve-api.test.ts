import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createTRPCClient, httpLink } from '@trpc/client';
import { startServer as startFlc, type RunningServer } from '../../src/server/start.js';
import { startServer, type TestServer } from '../support/http-server.js';
import type { AppRouter } from '../../src/server/trpc/router.js';

/** The new routes over a real socket, with their settings read from the environment by `startServer`. */
const SETTINGS = ['WEBHOOK_URL', 'ERRORTRACKER_DSN', 'METRICS_API_KEY', 'METRICS_API_URL', 'SENTRY_DSN'];
let hook: TestServer;
let flc: RunningServer;
let dir: string;
const bodies: string[] = [];
const logs: string[] = [];

beforeAll(async () => {
  hook = await startServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  const saved = SETTINGS.map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, {
    WEBHOOK_URL: `${hook.url.replace('http://', 'http://u:hook-secret@')}/in?sig=query-secret`,
    ERRORTRACKER_DSN: '',
    METRICS_API_KEY: '',
    SENTRY_DSN: 'https://browser@errors.example/4',
  });
  dir = mkdtempSync(join(tmpdir(), 'flc-serve-api-'));
  try {
    flc = await startFlc({
      host: '127.0.0.1',
      port: 0,
      version: '0.0.1',
      allowPrivateSources: false,
      store: { engine: 'sqlite', file: join(dir, 'flc.db') },
      log: (m) => logs.push(m),
    });
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});
afterAll(async () => {
  await flc.close();
  await hook.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${flc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('flc serve: notify, browser config and tRPC over HTTP', () => {
  test('WEBHOOK_URL gets the body byte for byte; the answer and the log carry no secret', async () => {
    const raw = '{"event":"deploy",   "message":"done",\n"metadata":{"n":1}}';
    const res = await post('/api/notify', raw);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(text).deliveries).toEqual([{ target: 'generic', success: true, statusCode: 204 }]);
    expect(bodies).toEqual([raw]);
    expect(hook.requests[0]!.path).toBe('/in?sig=query-secret');
    for (const secret of ['hook-secret', 'query-secret']) {
      expect(text).not.toContain(secret);
      expect(logs.join('\n')).not.toContain(secret);
    }
    expect((await post('/api/notify', JSON.stringify({ event: 'e', message: 'x'.repeat(70_000) }))).status).toBe(413);
    expect((await post('/api/notify', '{"event":')).status).toBe(400);
  });

  test('SENTRY_DSN is shown to browsers; turnstile is off without a secret', async () => {
    expect(await (await fetch(`${flc.url}/api/sentry-config`)).json()).toEqual({
      success: true,
      enabled: true,
      dsn: 'https://browser@errors.example/4',
    });
    expect(await (await fetch(`${flc.url}/api/turnstile-config`)).json()).toEqual({ success: true, enabled: false });
  });

  test('a signed-up user calls tRPC over the socket', async () => {
    const signUp = await post(
      '/api/auth/sign-up/email',
      JSON.stringify({ email: 'trpc@example.org', password: 'a long enough password' }),
    );
    const { token } = (await signUp.json()) as { token: string };
    const trpc = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${flc.url}/api/trpc`, headers: { authorization: `Bearer ${token}` } })],
    });
    const answer = await trpc.validateRule.mutate({ rule: '||ads.example^' });
    expect(answer).toMatchObject({ success: true, valid: true, ruleType: 'NetworkRule' });
    const big = await post('/api/trpc/validateRule', JSON.stringify({ rule: 'a'.repeat(70_000) }), {
      authorization: `Bearer ${token}`,
    });
    expect(big.status).toBe(413);
    expect((await big.json()).error.data.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
