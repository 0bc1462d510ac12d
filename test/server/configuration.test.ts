import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testApp } from '../support/test-app.js';
import { SafeSourceReader } from '../../src/node/safe-reader.js';
import { startServer, type TestServer } from '../support/http-server.js';

let clock = 0;
let lists: TestServer;
const { request } = testApp({
  version: '1.0.0',
  now: () => clock,
  startedAt: 0,
  envOverrides: { description: 'from the environment' },
  makeReader: () =>
    new SafeSourceReader({ allowPrivate: true, timeoutMs: 5_000, retries: 0, maxBytes: 1 << 20, userAgent: 'test' }),
});
const post = (path: string, body: unknown) =>
  request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

beforeAll(async () => {
  lists = await startServer((_req, res) => res.writeHead(200).end('||a.example^\n||a.example^'));
});
afterAll(() => lists.close());

describe('configuration routes', () => {
  test('GET /api/configuration/defaults', async () => {
    expect(await (await request('/api/configuration/defaults')).json()).toMatchObject({
      success: true,
      limits: { maxSources: 20, maxExclusions: 1000 },
      supportedSourceTypes: ['adblock', 'hosts'],
      defaults: { compilation: {}, validation: {} },
    });
  });

  test('POST /api/configuration/validate: valid, and invalid with path-level errors, both 200', async () => {
    const ok = await post('/api/configuration/validate', {
      configuration: { name: 'L', sources: [{ url: 'https://x/a.txt' }] },
    });
    expect(await ok.json()).toEqual({
      success: true,
      valid: true,
      configuration: { name: 'L', sources: [{ source: 'https://x/a.txt' }] },
    });
    const bad = await post('/api/configuration/validate', {
      configuration: { name: '', sources: [{ source: 'a', colour: 1 }] },
    });
    expect(bad.status).toBe(200);
    const body = await bad.json();
    expect(body).toMatchObject({ success: false, valid: false });
    expect(body.errors).toEqual(expect.arrayContaining([{ path: 'sources[0]', message: 'unknown key "colour"' }]));
    expect((await post('/api/configuration/validate', '{')).status).toBe(400);
  });

  test('POST /api/configuration/resolve merges overrides, then the environment ones', async () => {
    const config = { name: 'L', sources: [{ source: 'https://x/a.txt' }], transformations: ['Deduplicate'] };
    const res = await post('/api/configuration/resolve', {
      config,
      override: { name: 'M', transformations: ['Compress'] },
      applyEnvOverrides: true,
    });
    expect(await res.json()).toEqual({
      success: true,
      resolved: { ...config, name: 'M', transformations: ['Compress'], description: 'from the environment' },
    });
    const invalid = await post('/api/configuration/resolve', { config, override: { sources: [] } });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).detail).toMatch(/sources/);
  });
});

describe('POST /api/compile/batch', () => {
  test('one result per request, failures included', async () => {
    const res = await post('/api/compile/batch', {
      requests: [
        {
          id: 'one',
          configuration: { name: 'A', sources: [{ source: `${lists.url}/a.txt` }], transformations: ['Deduplicate'] },
        },
        { id: 'two', configuration: { name: 'B', sources: [] } },
      ],
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.results[0]).toMatchObject({ id: 'one', success: true, ruleCount: 1 });
    expect(body.results[1]).toMatchObject({ id: 'two', success: false, error: expect.stringMatching(/sources/) });
  });

  test.each([
    [{ requests: Array.from({ length: 11 }, (_, i) => ({ id: String(i), configuration: {} })) }, /at most 10 requests/],
    [
      {
        requests: [
          { id: 'a', configuration: {} },
          { id: 'a', configuration: {} },
        ],
      },
      /ids must be unique/,
    ],
    [{ requests: [] }, /must not be empty/],
  ])('400 for %#', async (body, message) => {
    const res = await post('/api/compile/batch', body);
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toMatch(message);
  });
});

describe('streaming rate limit', () => {
  test('10 streaming requests (SSE or WebSocket) per minute per IP, then 429 with Retry-After: 60', async () => {
    clock = 10 * 60_000;
    const config = { configuration: { name: 'A', sources: [{ source: `${lists.url}/a.txt` }] } };
    for (let i = 0; i < 10; i += 1) expect((await post('/api/compile/stream', config)).status).toBe(200);
    const limited = await post('/compile/stream', config);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    const ws = await request('/api/ws/compile');
    expect(ws.status).toBe(429);
    clock += 60_000;
    expect((await post('/api/compile/stream', config)).status).toBe(200);
  });

  test('behind a proxy without --trust-proxy: one warning that its clients share the limit', async () => {
    const logged: string[] = [];
    const reader = { allowPrivate: true, timeoutMs: 5_000, retries: 0, maxBytes: 1 << 20, userAgent: 'test' };
    const behind = testApp({ makeReader: () => new SafeSourceReader(reader) }, (m) => logged.push(m));
    const config = { configuration: { name: 'A', sources: [{ source: `${lists.url}/a.txt` }] } };
    const stream = (headers: Record<string, string>) =>
      behind.request('/api/compile/stream', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(config),
      });
    expect((await stream({})).status).toBe(200);
    expect(logged.filter((m) => m.includes('--trust-proxy'))).toEqual([]);
    for (const address of ['198.51.100.1', '198.51.100.2'])
      expect((await stream({ 'x-forwarded-for': address })).status).toBe(200);
    const warnings = logged.filter((m) => m.includes('--trust-proxy'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/shares the per-address limits/);
  });
});
