import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { HttpFetcher } from '../../src/node/http-fetcher.js';
import { startServer, type TestServer } from '../support/http-server.js';

let plain: Server;
let connections = 0;
const sockets: import('node:net').Socket[] = [];
let http: TestServer;
const fetcher = (maxRedirects?: number) =>
  new HttpFetcher({
    timeoutMs: 5_000,
    retries: 2,
    retryBaseMs: 1,
    concurrency: 1,
    cache: null,
    userAgent: 't',
    maxRedirects,
  });

beforeAll(async () => {
  // Speaks plain HTTP, so an https:// URL to it fails in the TLS handshake.
  plain = createServer((socket) => {
    connections += 1;
    sockets.push(socket);
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  });
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  http = await startServer((req, res) => {
    if (req.url === '/gone') return void res.writeHead(404).end();
    res.writeHead(302, { location: req.url === '/file' ? 'file:///etc/passwd' : '/loop' }).end();
  });
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((r) => plain.close(r));
  await http.close();
});

describe('non-transient failures are not retried', () => {
  test('a TLS failure is one attempt', async () => {
    const f = fetcher();
    await expect(f.get(`https://127.0.0.1:${(plain.address() as AddressInfo).port}/`)).rejects.toThrow();
    expect(connections).toBe(1);
    await f.close();
  });

  test('a 404 is one request; a redirect loop stops after maxRedirects and is not retried', async () => {
    const f = fetcher(5);
    const before = http.requests.length;
    await expect(f.get(`${http.url}/gone`)).rejects.toThrow(/HTTP 404/);
    expect(http.requests.length - before).toBe(1);
    await expect(f.get(`${http.url}/loop`)).rejects.toThrow(/more than 5 redirects/);
    expect(http.requests.length - before).toBe(1 + 6);
    await expect(f.get(`${http.url}/file`)).rejects.toThrow(/redirected to a file: URL/);
    await f.close();
  });
});
