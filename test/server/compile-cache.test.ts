import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testApp } from '../support/test-app.js';
import { SafeSourceReader } from '../../src/node/safe-reader.js';
import { MemoryHttpCache } from '../../src/node/http-cache.js';
import { startServer, type TestServer } from '../support/http-server.js';

let lists: TestServer;
let version = 1;
const httpCache = new MemoryHttpCache();
const { request } = testApp({
  version: '1.0.0',
  now: () => Date.now(),
  startedAt: 0,
  makeReader: (hooks) =>
    new SafeSourceReader({
      allowPrivate: true,
      timeoutMs: 5_000,
      retries: 0,
      maxBytes: 1 << 20,
      userAgent: 't',
      cache: httpCache,
      onCache: hooks?.onCache,
      onResponse: hooks?.onResponse,
    }),
});
const compile = (file: string, headers: Record<string, string> = {}) =>
  request('/api/compile', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ configuration: { name: 'C', sources: [{ source: `${lists.url}/${file}` }] } }),
  });

beforeAll(async () => {
  lists = await startServer((req, res) => {
    const etag = `"v${version}"`;
    const send = () => {
      if (req.headers['if-none-match'] === etag) return void res.writeHead(304).end();
      res.writeHead(200, { etag }).end(`||v${version}.example^`);
    };
    if (req.url === '/slow.txt') setTimeout(send, 300);
    else send();
  });
});
afterAll(() => lists.close());

describe('compile cache and request sharing', () => {
  test('a repeat is a HIT after a 304 revalidation; a changed source is a MISS', async () => {
    const first = await compile('a.txt');
    expect(first.headers.get('x-cache')).toBe('MISS');
    const second = await compile('a.txt');
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(await second.json()).toMatchObject({ cached: true, rules: expect.arrayContaining(['||v1.example^']) });
    expect(lists.requests.at(-1)!.headers['if-none-match']).toBe('"v1"');

    version = 2;
    const third = await compile('a.txt');
    expect(third.headers.get('x-cache')).toBe('MISS');
    expect((await third.json()).rules).toContain('||v2.example^');
  });

  test('streamed compiles report the HTTP cache: miss and write, then hit', async () => {
    const stream = async () => {
      const res = await request('/api/compile/stream', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ configuration: { name: 'S', sources: [{ source: `${lists.url}/streamed.txt` }] } }),
      });
      return (await res.text())
        .split('\n\n')
        .filter((b) => b.startsWith('event: cache'))
        .map((b) => JSON.parse(b.split('\ndata: ')[1]));
    };
    const first = await stream();
    expect(first.map((e) => e.operation)).toEqual(['miss', 'write']);
    expect(first[0]).toMatchObject({ category: 'cache', key: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const second = await stream();
    expect(second).toMatchObject([{ operation: 'hit', key: first[0].key, size: first[1].size }]);
  });

  test('Cache-Control: no-cache bypasses the cache', async () => {
    await compile('b.txt');
    const bypass = await compile('b.txt', { 'cache-control': 'no-cache' });
    expect(bypass.headers.get('x-cache')).toBe('MISS');
  });

  test('identical requests in flight share one compilation', async () => {
    const before = lists.requests.filter((r) => r.path === '/slow.txt').length;
    const [a, b] = await Promise.all([
      compile('slow.txt', { 'cache-control': 'no-cache' }),
      compile('slow.txt', { 'cache-control': 'no-cache' }),
    ]);
    const dedup = [a, b].map((r) => r.headers.get('x-request-deduplication'));
    expect(dedup.sort()).toEqual(['HIT', null].sort());
    expect(lists.requests.filter((r) => r.path === '/slow.txt').length - before).toBe(1);
    const bodies = await Promise.all([a.json(), b.json()]);
    expect(bodies[0].rules).toEqual(bodies[1].rules);
  });
});

describe('recordingReader', () => {
  test('records lists read as bytes as well as text, with the same hash', async () => {
    const { recordingReader } = await import('../../src/server/compile-cache.js');
    const { memoryReader } = await import('../support/memory-reader.js');
    const base = Object.assign(memoryReader({ '/a.txt': '||münchen.de^\n', '/b.txt': '||b.example^\n' }), {
      async readBytes(location: string) {
        if (location !== '/a.txt') return null;
        // Room after the list, holding bytes that are not the list's: the record hashes the list alone.
        const bytes = new TextEncoder().encode('||münchen.de^\nROOM');
        return { bytes, length: bytes.length - 4 };
      },
    });
    const { reader, read } = recordingReader(base);
    expect(await reader.readBytes!('/a.txt')).not.toBeNull();
    expect(await reader.readBytes!('/b.txt')).toBeNull();
    await reader.read('/b.txt');
    const textOnly = recordingReader(memoryReader({ '/a.txt': '||münchen.de^\n' }));
    await textOnly.reader.read('/a.txt');
    expect([...read.keys()].sort()).toEqual(['/a.txt', '/b.txt']);
    expect(read.get('/a.txt')).toEqual(textOnly.read.get('/a.txt'));
    expect(textOnly.reader.readBytes).toBeUndefined();
  });
});
