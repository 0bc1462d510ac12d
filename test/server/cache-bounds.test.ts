import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { CompileCache, textBytes } from '../../src/server/compile-cache.js';
import { MemoryHttpCache } from '../../src/node/http-cache.js';
import { sha256 } from '../../src/server/hash.js';
import { startServer, type TestServer } from '../support/http-server.js';
import { BIN, startServe, type ServeProcess } from '../support/serve-process.js';
import { call, PASSWORD } from '../support/serve-accounts.js';

const rules = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `||${tag}-${i}.example^`);
const sizeOf = (value: string[]) => textBytes(value);

describe('the compile cache is bounded in bytes', () => {
  test('filled past its bound it evicts the least recently used, never holding more than the bound', async () => {
    const cache = new CompileCache<string[]>(sizeOf, 200_000);
    for (let i = 0; i < 30; i++) {
      cache.store(
        `key-${i}`,
        new Map([[`https://lists.example/${i}.txt`, { hash: sha256('') }]]),
        rules(1_000, `k${i}`),
        0,
      );
      expect(cache.bytes).toBeLessThanOrEqual(200_000);
    }
    expect(cache.size).toBeGreaterThan(1);
    expect(cache.size).toBeLessThan(30);
    const reread = async () => '';
    // The newest entries stay; the oldest went first.
    expect(await cache.lookup('key-0', 0, reread)).toBeNull();
    expect(await cache.lookup('key-29', 0, reread)).toEqual(rules(1_000, 'k29'));
  });

  test('a result larger than the whole bound is not kept, and does not push others out', async () => {
    const cache = new CompileCache<string[]>(sizeOf, 50_000);
    cache.store('small', new Map(), rules(10, 's'), 0);
    const held = cache.bytes;
    cache.store('large', new Map(), rules(5_000, 'l'), 0);
    expect(cache.bytes).toBe(held);
    expect(await cache.lookup('large', 0, async () => '')).toBeNull();
    expect(await cache.lookup('small', 0, async () => '')).toEqual(rules(10, 's'));
  });

  test('a bound of 0 keeps nothing', async () => {
    const cache = new CompileCache<string[]>(sizeOf, 0);
    cache.store('k', new Map(), rules(1, 'z'), 0);
    expect(cache.size).toBe(0);
  });
});

describe('the in-memory response cache is bounded in bytes', () => {
  const body = (kb: number) => 'x'.repeat(kb * 1024);
  test('filled past its bound it evicts, never holding more than the bound', async () => {
    const cache = new MemoryHttpCache(100 * 1024);
    for (let i = 0; i < 20; i++) {
      await cache.put({ url: `https://lists.example/${i}`, storedAt: '', body: body(30) });
      expect(cache.bytes).toBeLessThanOrEqual(100 * 1024);
    }
    expect(await cache.get('https://lists.example/0')).toBeNull();
    expect(await cache.get('https://lists.example/19')).not.toBeNull();
  });

  test("a source's validators count: a long ETag is not cached for the price of its body", async () => {
    const cache = new MemoryHttpCache(100 * 1024);
    await cache.put({ url: 'https://lists.example/e', storedAt: '', body: 'x', etag: 'e'.repeat(200 * 1024) });
    expect(cache.bytes).toBe(0);
    await cache.put({ url: 'https://lists.example/m', storedAt: '', body: 'x', lastModified: 'm'.repeat(200 * 1024) });
    expect(cache.bytes).toBe(0);
  });

  test('a body larger than the bound is not kept', async () => {
    const cache = new MemoryHttpCache(100 * 1024);
    await cache.put({ url: 'https://lists.example/big', storedAt: '', body: body(200) });
    expect(cache.bytes).toBe(0);
    expect(await cache.get('https://lists.example/big')).toBeNull();
  });
});

describe('flc serve: cache settings and no-store', () => {
  let lists: TestServer;
  let dir: string;
  const servers: ServeProcess[] = [];
  const tokens = new Map<ServeProcess, string>();
  // About 60 KB of rules, and a two-line list.
  const big = rules(2_500, 'big').join('\n');
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flc-cache-bounds-'));
    lists = await startServer((req, res) => {
      const etag = `"${req.url}"`;
      if (req.headers['if-none-match'] === etag) return void res.writeHead(304).end();
      res.writeHead(200, { etag }).end(req.url?.startsWith('/big') ? big : '||small.example^\n||tiny.example^\n');
    });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await lists.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const serve = async (name: string, args: string[], env: Record<string, string> = {}) => {
    const server = await startServe(['--db', join(dir, `${name}.db`), '--allow-private-sources', ...args], env);
    servers.push(server);
    const up = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, {
      email: 'user@example.org',
      password: PASSWORD,
    });
    expect(up.status, up.text).toBe(200);
    tokens.set(server, up.json.token as string);
    return server;
  };
  const compile = async (server: ServeProcess, file: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/api/compile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.get(server)}`, ...headers },
      body: JSON.stringify({ configuration: { name: 'C', sources: [{ source: `${lists.url}/${file}` }] } }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    await res.json();
    return res.headers.get('x-cache');
  };
  /** Whether the last download of `file` was a conditional request (its body was in the response cache). */
  const revalidated = (file: string) =>
    lists.requests.filter((r) => r.path === `/${file}`).at(-1)!.headers['if-none-match'] !== undefined;

  test('no-store compiles leave both caches unchanged; a later compile is the first to fill them', async () => {
    const server = await serve('nostore', []);
    expect(await compile(server, 'big-a.txt', { 'cache-control': 'no-store' })).toBe('MISS');
    expect(await compile(server, 'big-a.txt', { 'cache-control': 'no-store' })).toBe('MISS');
    expect(revalidated('big-a.txt')).toBe(false);
    expect(await compile(server, 'big-a.txt')).toBe('MISS');
    expect(revalidated('big-a.txt')).toBe(false);
    // Stored by the plain request: a repeat is a hit, revalidated against the cached body.
    expect(await compile(server, 'big-a.txt')).toBe('HIT');
    expect(revalidated('big-a.txt')).toBe(true);
  }, 60_000);

  test('no-store streamed and batch compiles add nothing to the response cache', async () => {
    const server = await serve('nostore-stream', []);
    const post = (path: string, body: object) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${tokens.get(server)}`,
          'cache-control': 'no-store',
        },
        body: JSON.stringify(body),
      }).then(async (res) => [res.status, await res.text()] as const);
    const configuration = (file: string) => ({ name: 'C', sources: [{ source: `${lists.url}/${file}` }] });
    expect((await post('/api/compile/stream', { configuration: configuration('big-s.txt') }))[1]).toContain(
      'event: result',
    );
    expect(
      (await post('/api/compile/batch', { requests: [{ id: 'a', configuration: configuration('big-t.txt') }] }))[0],
    ).toBe(200);
    expect(await compile(server, 'big-s.txt')).toBe('MISS');
    expect(revalidated('big-s.txt')).toBe(false);
    expect(await compile(server, 'big-t.txt')).toBe('MISS');
    expect(revalidated('big-t.txt')).toBe(false);
    // Both downloaded each list: the no-store one in full, the plain one in full again.
    expect(lists.requests.filter((r) => r.path === '/big-s.txt')).toHaveLength(2);
    expect(lists.requests.filter((r) => r.path === '/big-t.txt')).toHaveLength(2);
  }, 60_000);

  test('--compile-cache-max-bytes and FLC_HTTP_CACHE_MAX_BYTES bound what flc serve keeps', async () => {
    const server = await serve('bounded', ['--compile-cache-max-bytes', '20000'], {
      FLC_HTTP_CACHE_MAX_BYTES: '20000',
    });
    // The small list fits both bounds.
    expect(await compile(server, 'small.txt')).toBe('MISS');
    expect(await compile(server, 'small.txt')).toBe('HIT');
    expect(revalidated('small.txt')).toBe(true);
    // The large one fits neither: every compile is a miss and every download a full one.
    expect(await compile(server, 'big-b.txt')).toBe('MISS');
    expect(await compile(server, 'big-b.txt')).toBe('MISS');
    expect(revalidated('big-b.txt')).toBe(false);
  }, 60_000);

  test('a bad setting is refused with its name', () => {
    const run = spawnSync(process.execPath, [BIN, 'serve', '--port', '0', '--compile-cache-max-bytes', '-5'], {
      encoding: 'utf8',
      env: { ...process.env, FLC_DB: join(dir, 'bad.db') },
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/compile-cache-max-bytes/);
    const env = spawnSync(process.execPath, [BIN, 'serve', '--port', '0'], {
      encoding: 'utf8',
      env: { ...process.env, FLC_DB: join(dir, 'bad.db'), FLC_HTTP_CACHE_MAX_BYTES: 'lots' },
    });
    expect(env.status).not.toBe(0);
    expect(env.stderr).toMatch(/http-cache-max-bytes/);
  }, 30_000);
});
