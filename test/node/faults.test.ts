import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { startServer, type TestServer } from '../support/http-server.js';

let dir: string;
let server: TestServer | undefined;
const env = { FLC_RETRY_BASE_MS: '5', FLC_CACHE_DIR: undefined };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-faults-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const compileUrl = (url: string, ...extra: string[]) =>
  runCli(['compile', '-i', url, '-o', join(dir, 'out.txt'), '--cache-dir', join(dir, 'cache'), ...extra], { env });

describe('network faults, against a local server', () => {
  test('a source answering 500 is retried, then the compile fails naming it and leaves no output', async () => {
    server = await startServer((_req, res) => res.writeHead(500).end('boom'));
    writeFileSync(join(dir, 'keep.txt'), 'x');
    const result = await compileUrl(`${server.url}/list.txt`, '--retries', '2');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${server.url}/list.txt`);
    expect(result.stderr).toMatch(/HTTP 500.*after 3 attempts/);
    expect(server.requests).toHaveLength(3);
    expect(readdirSync(dir).sort()).toEqual(['keep.txt']);
  });

  test('a failed compile leaves an existing output file untouched', async () => {
    server = await startServer((_req, res) => res.writeHead(503).end());
    writeFileSync(join(dir, 'out.txt'), 'previous list\n');
    const result = await compileUrl(`${server.url}/list.txt`, '--retries', '0');
    expect(result.code).toBe(1);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('previous list\n');
  });

  test('a source that never answers times out', async () => {
    server = await startServer(() => undefined);
    const started = Date.now();
    const result = await compileUrl(`${server.url}/slow.txt`, '--timeout', '0.4', '--retries', '0');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/slow\.txt failed: timed out after 0\.4 s/);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(existsSync(join(dir, 'out.txt'))).toBe(false);
  });

  test('429 with Retry-After and network resets are retried, then succeed', async () => {
    server = await startServer((req, res, n) => {
      if (n === 1) res.writeHead(429, { 'retry-after': '0' }).end();
      else if (n === 2) req.socket.destroy();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('0.0.0.0 retried.example');
    });
    const result = await compileUrl(`${server.url}/list.txt`);
    expect(result.code).toBe(0);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toContain('||retried.example^');
    expect(server.requests).toHaveLength(3);
  });

  test('redirects are followed', async () => {
    server = await startServer((req, res) => {
      if (req.url === '/old.txt') res.writeHead(301, { location: '/new.txt' }).end();
      else res.writeHead(200).end('0.0.0.0 moved.example');
    });
    const result = await compileUrl(`${server.url}/old.txt`);
    expect(result.code).toBe(0);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toContain('||moved.example^');
  });

  test('an unchanged source is revalidated with 304 on the second run and not downloaded again', async () => {
    let bodies = 0;
    server = await startServer((req, res) => {
      if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304).end();
      bodies += 1;
      res
        .writeHead(200, { etag: '"v1"', 'last-modified': 'Mon, 02 Jan 2026 00:00:00 GMT' })
        .end('0.0.0.0 cached.example');
    });
    const first = await compileUrl(`${server.url}/list.txt`);
    const second = await compileUrl(`${server.url}/list.txt`);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(bodies).toBe(1);
    expect(server.requests[1].headers['if-none-match']).toBe('"v1"');
    expect(server.requests[1].headers['if-modified-since']).toBe('Mon, 02 Jan 2026 00:00:00 GMT');
    expect(second.stderr).toContain('not modified');
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toContain('||cached.example^');
  });

  test('--no-cache downloads again', async () => {
    server = await startServer((_req, res) => res.writeHead(200, { etag: '"v1"' }).end('0.0.0.0 a.example'));
    await compileUrl(`${server.url}/list.txt`, '--no-cache');
    await compileUrl(`${server.url}/list.txt`, '--no-cache');
    expect(server.requests.every((r) => r.headers['if-none-match'] === undefined)).toBe(true);
  });

  test('404 is not retried', async () => {
    server = await startServer((_req, res) => res.writeHead(404).end());
    const result = await compileUrl(`${server.url}/gone.txt`, '--retries', '3');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTTP 404');
    expect(server.requests).toHaveLength(1);
  });
});

describe('malformed configurations', () => {
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  test.each([
    ['bad.yaml', 'name: L\nsources: [\n  - source: a', /YAML syntax error/],
    ['unknown.json', '{"name":"L","sources":[{"source":"a.txt"}],"colour":"red"}', /unknown key "colour"/],
    [
      'two.json',
      '{"name":"L","sources":[{"source":"a.txt"}],"transformations":["Validate","ValidateAllowIp"]}',
      /transformations: validation transformations cannot be combined/,
    ],
    ['empty.toml', 'name = "L"\nsources = []', /sources: Too small/],
    ['noname.json', '{"sources":[{"source":"a.txt"}]}', /name: is required/],
  ])('%s exits 2 naming the problem', async (name, text, message) => {
    const result = await runCli(['compile', '-c', write(name, text), '-o', join(dir, 'out.txt')], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(join(dir, 'out.txt'))).toBe(false);
  });

  test('a missing configuration file exits 2', async () => {
    const result = await runCli(['compile', '-c', join(dir, 'nope.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot read .*nope\.json: no such file/);
  });

  test('a bad exclusion regex exits 2 naming the pattern', async () => {
    write('l.txt', 'a');
    const cfg = write('re.json', JSON.stringify({ name: 'L', sources: [{ source: 'l.txt' }], exclusions: ['/([/'] }));
    const result = await runCli(['compile', '-c', cfg], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Invalid pattern /([/');
  });
});
