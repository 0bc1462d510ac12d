import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CompilePool } from '../../src/node/compile-pool.js';
import { SafeSourceReader } from '../../src/node/safe-reader.js';
import { compile } from '../../src/core/pipeline/compile.js';
import type { SourceReader } from '../../src/core/load/source-reader.js';
import type { Configuration } from '../../src/core/config/schema.js';
import { startServer, type TestServer } from '../support/http-server.js';

/** Lists as a source serves them: CRLF, a BOM, ill-formed UTF-8, directives, an include. */
const LISTS: Record<string, Uint8Array> = {
  'a.txt': Buffer.from('\ufeff! Title: A\r\n||a.example^\r\n0.0.0.0 b.example\r\n||münchen.de^$important\r\n'),
  'b.txt': Buffer.concat([
    Buffer.from('||c.example^\n!#if !adguard\n||d.example^\n!#endif\n'),
    Buffer.from([0xff, 0x0a]),
  ]),
  'c.txt': Buffer.from('!#include inc/d.txt\n||e.example^\n||a.example^\n'),
  'inc/d.txt': Buffer.from('! Diff-Path: x\n||f.example^\r||sub.f.example^\r'),
  'x.txt': Buffer.from('||e.example^\n'),
};

let http: TestServer;
const pool = new CompilePool({ size: 1, deadlineMs: 20_000 });

beforeAll(async () => {
  http = await startServer((req, res) => {
    const body = LISTS[(req.url ?? '').slice(1)];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { etag: '"1"' }).end(body);
  });
});
afterAll(async () => {
  await http.close();
  await pool.destroy();
});

/** The server's reader, counting how each list was asked for. */
function countingReader() {
  const safe = new SafeSourceReader({
    allowPrivate: true,
    timeoutMs: 5_000,
    retries: 0,
    maxBytes: 1 << 20,
    userAgent: 't',
  });
  const asked = { text: [] as string[], bytes: [] as string[] };
  const reader: SourceReader = {
    resolve: (ref, base) => safe.resolve(ref, base),
    read: (location, signal, options) => {
      asked.text.push(location);
      return safe.read(location, signal, options);
    },
    readBytes: (location, signal, options) => {
      asked.bytes.push(location);
      return safe.readBytes(location, signal, options);
    },
  };
  return { reader, asked, close: () => safe.close() };
}

const configuration = (): Configuration =>
  ({
    name: 'Pool bytes',
    sources: ['a.txt', 'b.txt', 'c.txt'].map((f) => ({ source: `${http.url}/${f}` })),
    transformations: ['RemoveComments', 'Compress', 'Validate', 'Deduplicate', 'InsertFinalNewLine'],
    exclusions_sources: [`${http.url}/x.txt`],
  }) as Configuration;

describe("a server compile's downloads", () => {
  test('reach the worker as bytes, and compile to what their text compiles to', async () => {
    const { reader, asked, close } = countingReader();
    const now = () => new Date(0);
    try {
      const pooled = await pool.compile(configuration(), { reader, compiler: 't', now });
      // Every list the packed engine loads (sources, the include) is asked for as bytes, never as text.
      const lists = ['a.txt', 'b.txt', 'c.txt', 'inc/d.txt'].map((f) => `${http.url}/${f}`);
      expect(asked.bytes.sort()).toEqual(lists.sort());
      expect(asked.text).toEqual([`${http.url}/x.txt`]);

      // The same configuration in-process, each list read as text only.
      const { reader: textOnly, close: closeText } = countingReader();
      const { readBytes: _, ...asText } = textOnly;
      try {
        const inProcess = await compile(configuration(), { reader: asText, compiler: 't', now });
        expect(pooled.lines).toEqual(inProcess.lines);
        expect(pooled.ruleCount).toBe(inProcess.ruleCount);
      } finally {
        await closeText();
      }
      expect(pooled.lines).toContain('||d.example^');
      expect(pooled.lines).toContain('||f.example^');
      expect(pooled.lines).not.toContain('||e.example^');
    } finally {
      await close();
    }
  });

  test("an include off its list's origin is refused with read()'s message", async () => {
    const { reader, close } = countingReader();
    const other = http.url.replace('127.0.0.1', 'localhost');
    LISTS['off.txt'] = Buffer.from(`!#include ${other}/x.txt\n||z.example^\n`);
    try {
      const config = { name: 'Off', sources: [{ source: `${http.url}/off.txt` }] } as Configuration;
      await expect(pool.compile(config, { reader, compiler: 't', now: () => new Date(0) })).rejects.toThrow(
        /is rejected: it is not on the same origin as/,
      );
    } finally {
      await close();
    }
  });
});
