import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isUtf8 } from 'node:buffer';
import { gzipSync } from 'node:zlib';
import { HttpFetcher } from '../../src/node/http-fetcher.js';
import { MemoryHttpCache } from '../../src/node/http-cache.js';
import { DEFAULT_HTTP, NodeSourceReader } from '../../src/node/source-reader.js';
import { SafeSourceReader } from '../../src/node/safe-reader.js';
import { startServer, type TestServer } from '../support/http-server.js';

/** Bodies whose text is easy to get wrong: byte order marks, line ends, ill-formed UTF-8, edges. */
const BODIES: Record<string, Uint8Array> = {
  lf: Buffer.from('||a.example^\n0.0.0.0 b.example\n'),
  crlf: Buffer.from('||a.example^\r\n\r\n! c\r\n||b.example^\r\n'),
  'lone-cr': Buffer.from('||a.example^\r||b.example^\r'),
  bom: Buffer.from('\ufeff||münchen.de^\n||b.example^\n'),
  'bom-twice': Buffer.from('\ufeff\ufeff||a.example^\n'),
  'ill-formed': Buffer.from([0x7c, 0x7c, 0x61, 0xff, 0x2e, 0x64, 0x65, 0x5e, 0x0a, 0xe2, 0x82, 0x0a, 0xc3]),
  'non-ascii-edges': Buffer.from('\u00a0||a.example^\n||ü.example^\u3000'),
  empty: Buffer.alloc(0),
  blank: Buffer.from(' \n\r\n\t'),
  surrogate: Buffer.from([0xed, 0xa0, 0x80, 0x0a, 0x7c, 0x7c, 0x62, 0x5e]),
};

let http: TestServer;

beforeAll(async () => {
  http = await startServer((req, res) => {
    const [, name, how] = /^\/([^.]+)\.(plain|gzip|etag)$/.exec(req.url ?? '') ?? [];
    const body = BODIES[name];
    if (!body) return void res.writeHead(404).end();
    if (how === 'gzip') return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(body));
    if (how === 'etag') {
      if (req.headers['if-none-match'] === '"1"') return void res.writeHead(304).end();
      return void res.writeHead(200, { etag: '"1"' }).end(body);
    }
    res.writeHead(200).end(body);
  });
});
afterAll(() => http.close());

const fetcher = (maxBytes?: number, cache: MemoryHttpCache | null = null) =>
  new HttpFetcher({ timeoutMs: 5_000, retries: 0, retryBaseMs: 1, concurrency: 2, cache, userAgent: 't', maxBytes });

const text = ({ bytes, length }: { bytes: Uint8Array; length: number }) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, length).toString('utf8');

describe('a download read as bytes', () => {
  // Without a bound the text is fetch's own (a leading BOM dropped); with one, the bytes decoded whole.
  const expected = (raw: Uint8Array, bounded: boolean) =>
    bounded ? Buffer.from(raw).toString('utf8') : new TextDecoder('utf-8').decode(raw);

  for (const bounded of [false, true]) {
    for (const how of ['plain', 'gzip', 'etag']) {
      test(`is the UTF-8 of the text read() gives (${bounded ? 'maxBytes' : 'no bound'}, ${how})`, async () => {
        const f = fetcher(bounded ? 1 << 20 : undefined, how === 'etag' ? new MemoryHttpCache() : null);
        try {
          for (const [name, raw] of Object.entries(BODIES)) {
            const url = `${http.url}/${name}.${how}`;
            const got = await f.get(url);
            expect(got, name).toBe(expected(raw, bounded));
            // Twice: with an ETag the second comes from the cache after a 304.
            for (let i = 0; i < 2; i += 1) {
              const given = await f.getBytes(url);
              expect(text(given), name).toBe(got);
              expect(isUtf8(given.bytes.subarray(0, given.length)), name).toBe(true);
              // A buffer of its own, with room after the list (ListBytes), that can move to a worker.
              expect(given.bytes.byteOffset).toBe(0);
              expect(given.bytes.buffer.byteLength).toBe(given.bytes.byteLength);
              expect(given.bytes.length).toBeGreaterThanOrEqual(2 * given.length);
            }
          }
          if (how === 'etag') {
            expect(http.requests.filter((r) => r.headers['if-none-match'] === '"1"').length).toBeGreaterThan(0);
          }
        } finally {
          await f.close();
        }
      });
    }
  }

  test("the file and HTTP reader's bytes of a URL, and its refusals, are read()'s", async () => {
    const node = new NodeSourceReader({ ...DEFAULT_HTTP, retries: 0, baseDir: '/', cacheDir: null, userAgent: 't' });
    const safe = new SafeSourceReader({
      allowPrivate: true,
      timeoutMs: 5_000,
      retries: 0,
      maxBytes: 32,
      userAgent: 't',
    });
    try {
      for (const name of ['bom', 'ill-formed', 'crlf']) {
        const url = `${http.url}/${name}.plain`;
        expect(text((await node.readBytes(url))!)).toBe(await node.read(url));
      }
      const small = `${http.url}/bom.plain`;
      expect(text(await safe.readBytes(small))).toBe(await safe.read(small));
      const large = `${http.url}/crlf.plain`; // 37 bytes
      await expect(safe.readBytes(large)).rejects.toThrow(/refused: .*larger than 32 bytes/);
      await expect(safe.read(large)).rejects.toThrow(/refused: .*larger than 32 bytes/);
      // Held to another origin (an include's), the source is refused as read() refuses it.
      const held = { origin: 'http://lists.example' };
      await expect(node.readBytes(small, undefined, held)).rejects.toThrow(/not on the origin http:\/\/lists.example/);
      await expect(node.read(small, undefined, held)).rejects.toThrow(/not on the origin http:\/\/lists.example/);
      await expect(safe.readBytes('file:///etc/passwd')).rejects.toThrow(/the file: scheme is not allowed/);
    } finally {
      await node.close();
      await safe.close();
    }
  });
});
