import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testApp } from '../support/test-app.js';
import { SafeSourceReader } from '../../src/node/safe-reader.js';
import { startServer, type TestServer } from '../support/http-server.js';

let lists: TestServer;
const makeApp = (allowPrivate: boolean) =>
  testApp({
    version: '1.0.0',
    now: () => Date.parse('2026-02-03T04:05:06Z'),
    startedAt: 0,
    makeReader: (hooks) =>
      new SafeSourceReader({
        allowPrivate,
        timeoutMs: 5_000,
        retries: 0,
        maxBytes: 1024,
        userAgent: 'test',
        onResponse: hooks?.onResponse,
      }),
  });
const trusting = makeApp(true);
const safe = makeApp(false);
const post = (app: ReturnType<typeof makeApp>, path: string, body: unknown) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const config = (...sources: string[]) => ({
  configuration: {
    name: 'Served',
    sources: sources.map((source) => ({ source })),
    transformations: ['Compress', 'Validate'],
  },
});

beforeAll(async () => {
  lists = await startServer((req, res) => {
    if (req.url === '/big.txt') return void res.writeHead(200).end('x'.repeat(5000));
    if (req.url === '/broken.txt') return void res.writeHead(500).end();
    res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end('0.0.0.0 ads.example.com\n0.0.0.0 sub.ads.example.com\n||bad.example^$media');
  });
});
afterAll(() => lists.close());

/** Parses a text/event-stream body into [event, data] pairs. */
function events(text: string): [string, unknown][] {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return [event, JSON.parse(data)];
    });
}

describe('POST /api/compile', () => {
  test('compiles sources over HTTP', async () => {
    const res = await post(trusting, '/api/compile', config(`${lists.url}/a.txt`));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      success: true,
      ruleCount: 1,
      compiledAt: '2026-02-03T04:05:06.000Z',
      metrics: { sourceCount: 1, ruleCount: 1 },
    });
    expect(body.rules).toContain('||ads.example.com^');
    expect(body.rules).toContain('! Compiled by flc v1.0.0');
  });

  test('an invalid configuration is 422 with path-level errors', async () => {
    const res = await post(trusting, '/api/compile', { configuration: { name: 'x', sources: [], colour: 1 } });
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.success).toBe(false);
    expect(body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['sources']));
  });

  test("flc compile's publishing keys are refused by name, not ignored", async () => {
    const base = config(`${lists.url}/a.txt`).configuration;
    for (const [extra, path] of [
      [{ publish: { maxShrink: 10 } }, 'publish'],
      [{ onSourceError: 'stale' }, 'onSourceError'],
      [{ onSourceError: 'skip', maxStale: '2d' }, 'maxStale'],
    ] as const) {
      const res = await post(trusting, '/api/compile', { configuration: { ...base, ...extra } });
      expect(res.status, path).toBe(422);
      const body = await res.json();
      expect(body.errors, path).toEqual([expect.objectContaining({ path })]);
      expect(body.error).toMatch(/is an option of flc compile/);
    }
    // What the server does do is unchanged.
    const skip = await post(trusting, '/api/compile', { configuration: { ...base, onSourceError: 'skip' } });
    expect(skip.status).toBe(200);
  });

  test('more than 20 sources is 422', async () => {
    const res = await post(trusting, '/api/compile', config(...Array(21).fill(`${lists.url}/a.txt`)));
    expect(res.status).toBe(422);
    expect((await res.json()).error).toMatch(/at most 20 sources/);
  });

  test('a failing upstream is 502, an oversized one 422, neither leaks internals', async () => {
    const broken = await post(trusting, '/api/compile', config(`${lists.url}/broken.txt`));
    expect(broken.status).toBe(502);
    expect((await broken.json()).detail).toMatch(/broken\.txt failed: HTTP 500/);
    const big = await post(trusting, '/api/compile', config(`${lists.url}/big.txt`));
    expect(big.status).toBe(422);
    expect((await big.json()).error).toMatch(/big\.txt refused: larger than 1024 bytes/);
  });
});

describe('POST /api/compile/stream', () => {
  test.each(['/api/compile/stream', '/compile/stream'])(
    '%s streams the core events, then result and done',
    async (path) => {
      const res = await post(trusting, path, config(`${lists.url}/a.txt?token=secret`));
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      const all = events(await res.text());
      const network = all.filter(([e]) => e === 'network' || e === 'metric');
      expect(network.map(([e]) => e)).toEqual(['network', 'metric']);
      expect(network[0][1]).toMatchObject({
        method: 'GET',
        url: `${lists.url}/a.txt`,
        statusCode: 200,
        responseSize: Buffer.byteLength('0.0.0.0 ads.example.com\n0.0.0.0 sub.ads.example.com\n||bad.example^$media'),
      });
      expect(network[1][1]).toMatchObject({
        metric: 'download speed',
        unit: 'bytes/s',
        dimensions: { url: `${lists.url}/a.txt` },
      });
      const stream = all.filter(([e]) => e !== 'network' && e !== 'metric');
      const names = stream.map(([e]) => e);
      expect(names).toEqual([
        'source:start',
        'source:complete',
        'progress',
        'transformation:start',
        'transformation:complete',
        'transformation:start',
        'transformation:complete',
        'progress',
        'result',
        'done',
      ]);
      const complete = stream.find(([e]) => e === 'transformation:complete')![1] as {
        name: string;
        inputCount: number;
        outputCount: number;
      };
      // List-level transformations see the source block too: 3 header lines + 3 rules.
      expect(complete).toMatchObject({ name: 'Compress', inputCount: 6, outputCount: 5 });
      expect(stream[8][1]).toMatchObject({ ruleCount: 1, metrics: { sourceCount: 1 } });
    },
  );

  test('a failing source ends the stream with an error event', async () => {
    const res = await post(trusting, '/api/compile/stream', config(`${lists.url}/broken.txt`));
    const stream = events(await res.text());
    expect(stream.map(([e]) => e)).toEqual(['source:start', 'network', 'source:error', 'error']);
    expect(stream[1][1]).toMatchObject({ statusCode: 500 });
  });

  test('an invalid configuration is 422 before any stream starts', async () => {
    const res = await post(trusting, '/api/compile/stream', { configuration: { sources: [] } });
    expect(res.status).toBe(422);
  });
});

describe('server-side compile safety', () => {
  test.each([
    ['file:///etc/passwd', /only http:\/\/ and https:\/\/ sources/],
    ['lists/local.txt', /only http:\/\/ and https:\/\/ sources/],
    ['http://127.0.0.1:{port}/a.txt', /127\.0\.0\.1 is a private, loopback/],
    ['http://[::1]:{port}/a.txt', /::1 is a private, loopback/],
    ['http://localhost:{port}/a.txt', /localhost resolves to a private, loopback(?![^"]*127\.0\.0\.1)/],
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a private, loopback, link-local/],
    ['http://10.1.2.3/list.txt', /10\.1\.2\.3 is a private/],
    ['http://[::ffff:127.0.0.1]:{port}/a.txt', /private, loopback/],
  ])('%s is refused with 422 naming the source, and no request is made', async (template, message) => {
    const source = template.replace('{port}', new URL(lists.url).port);
    const before = lists.requests.length;
    for (const path of ['/api/compile']) {
      const res = await post(safe, path, config(source));
      expect(res.status).toBe(422);
      const body = await res.json();
      expect(body.error).toContain(`Source ${source} refused`);
      expect(body.error).toMatch(message);
    }
    expect(lists.requests.length).toBe(before);
  });
});
