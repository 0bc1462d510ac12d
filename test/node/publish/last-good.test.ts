// `onSourceError: stale` at the HTTP layer: every body is kept as the last good copy, an empty body
// never replaces one, and a 304 renews the copy's date.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeSourceReader } from '../../../src/node/source-reader.js';
import { startServer, type TestServer } from '../../support/http-server.js';

let dir: string;
let server: TestServer;
let answer: { status: number; body: string; etag?: string };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flc-lastgood-'));
  server = await startServer((req, res) => {
    if (answer.etag && req.headers['if-none-match'] === answer.etag) return void res.writeHead(304).end();
    res.writeHead(answer.status, answer.etag ? { etag: answer.etag } : {}).end(answer.body);
  });
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const reader = (keepLastGood: boolean) =>
  new NodeSourceReader({
    timeoutMs: 5_000,
    retries: 0,
    retryBaseMs: 1,
    concurrency: 1,
    userAgent: 't',
    baseDir: dir,
    cacheDir: join(dir, 'cache'),
    keepLastGood,
  });

test('a body without validators is kept only in stale mode; an empty body never replaces it', async () => {
  const url = `${server.url}/list.txt`;
  answer = { status: 200, body: '||a^\n' };
  const plain = reader(false);
  await plain.read(url);
  expect(await plain.lastGood(url)).toBeNull();
  await plain.close();

  const stale = reader(true);
  await stale.read(url);
  expect((await stale.lastGood(url))?.text).toBe('||a^\n');
  answer = { status: 200, body: '' };
  expect(await stale.read(url)).toBe('');
  expect((await stale.lastGood(url))?.text).toBe('||a^\n');
  await stale.close();
});

test('a 304 renews the date of the copy', async () => {
  const url = `${server.url}/list.txt`;
  answer = { status: 200, body: '||a^\n', etag: '"v1"' };
  const stale = reader(true);
  await stale.read(url);
  const first = (await stale.lastGood(url))!.at.getTime();
  await new Promise((r) => setTimeout(r, 20));
  expect(await stale.read(url)).toBe('||a^\n');
  expect((await stale.lastGood(url))!.at.getTime()).toBeGreaterThan(first);
  await stale.close();
});
