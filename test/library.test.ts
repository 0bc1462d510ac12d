import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The package root, as a user imports it (the built dist/index.js, through package.json's exports).
import flcDefault, { compile, explain, FORMATS, NodeSourceReader, OUTPUT_FORMATS } from 'flc';
import { referenceOutput, stripVolatile } from './support/reference.js';
import { startServer, type TestServer } from './support/http-server.js';

let dir: string;
let server: TestServer;
const FILTER =
  '! AdGuard DNS filter (excerpt)\n||ads.example.com^\n||*.org^\n@@||good.example^\n' +
  '||bad.example^$media\n||ads.example.com^\n';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flc-library-'));
  writeFileSync(join(dir, 'local.txt'), '||local.example^\n! comment\n||x_.example.com^\n');
  server = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(FILTER);
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The reference README's API example, its URL served from this machine and a local file beside it. */
const readmeConfig = () => ({
  name: 'Your Hostlist',
  sources: [
    {
      type: 'adblock',
      source: `${server.url}/Filters/filter.txt`,
      transformations: ['RemoveComments', 'Validate'],
    },
    { type: 'adblock', source: join(dir, 'local.txt'), transformations: ['RemoveComments', 'Validate'] },
  ],
  transformations: ['Deduplicate'],
});

describe("the reference's library API: compile(config) returns the lines", () => {
  test("import { compile } from 'flc' with only the README's configuration gives the reference's lines", async () => {
    const lines = await compile(readmeConfig());
    expect(Array.isArray(lines)).toBe(true);
    expect(lines).toContain('||ads.example.com^');
    expect(stripVolatile(lines)).toEqual(await referenceOutput(readmeConfig()));
  });

  test('the default export is the same function (import compile from "flc")', async () => {
    expect(flcDefault).toBe(compile);
  });

  test('an invalid configuration rejects naming the field', async () => {
    await expect(compile({ name: 'x', sources: [{ source: 'a.txt' }], transformations: ['Validat'] })).rejects.toThrow(
      /transformations\[0\]/,
    );
  });

  test('the options form still returns the whole result', async () => {
    const reader = new NodeSourceReader({
      timeoutMs: 5000,
      retries: 0,
      retryBaseMs: 1,
      concurrency: 1,
      baseDir: dir,
      cacheDir: null,
      userAgent: 't',
    });
    const result = await compile(
      { name: 'L', sources: [{ source: 'local.txt' }] },
      { reader, compiler: 'flc vtest', report: true },
    );
    await reader.close();
    expect(result.lines).toContain('||local.example^');
    expect(result.report?.sources[0].lineCount).toBe(3);
  });
});

describe('output formats and explain, from the package', () => {
  test('a compile in a DNS format, and explain over its report', async () => {
    const reader = new NodeSourceReader({
      timeoutMs: 5000,
      retries: 0,
      retryBaseMs: 1,
      concurrency: 1,
      baseDir: dir,
      cacheDir: null,
      userAgent: 't',
    });
    const result = await compile(
      { name: 'L', sources: [{ source: 'local.txt' }], format: 'rpz' },
      { reader, compiler: 'flc vtest', report: true },
    );
    await reader.close();
    expect(OUTPUT_FORMATS).toEqual(['adblock', ...Object.keys(FORMATS)]);
    expect(result.lines).toContain('*.local.example CNAME .');
    const answer = explain('www.local.example', result.report!);
    expect(answer).toMatchObject({ blocked: true, format: 'rpz', decidedBy: { text: '||local.example^', line: 1 } });
  });
});
