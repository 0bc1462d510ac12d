import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HttpFetcher } from '../../src/node/http-fetcher.js';
import { guardedConnector } from '../../src/node/guarded-connect.js';
import { addressPolicy } from '../../src/node/address-policy.js';
import { startServer, type TestServer } from '../support/http-server.js';

let server: TestServer;
let port: string;
beforeAll(async () => {
  server = await startServer((_req, res) => res.end('ok'));
  port = new URL(server.url).port;
});
afterAll(() => server.close());

/** A fetcher whose names resolve to `addresses`, under a policy that calls `publicOnes` public. */
function fetcherWith(addresses: string[], publicOnes: string[]) {
  const policy = addressPolicy({ isPublic: (a) => publicOnes.includes(a) });
  const connect = guardedConnector(policy, 2_000, async () => addresses);
  return new HttpFetcher({
    timeoutMs: 5_000,
    retries: 0,
    retryBaseMs: 1,
    concurrency: 1,
    cache: null,
    userAgent: 't',
    connect,
  });
}

describe('the guarded connector', () => {
  test('connects to the checked address of a name, trying the next when one fails', async () => {
    // Nothing listens on 127.0.0.3 at that port: the second address answers.
    const f = fetcherWith(['127.0.0.3', '127.0.0.1'], ['127.0.0.3', '127.0.0.1']);
    expect(await f.get(`http://lists.example:${port}/a.txt`)).toBe('ok');
    expect(server.requests.at(-1)?.headers.host).toBe(`lists.example:${port}`);
    await f.close();
  });

  test('a name with any refused address is refused, and nothing is contacted', async () => {
    const before = server.requests.length;
    const f = fetcherWith(['127.0.0.3', '127.0.0.1'], ['127.0.0.3']);
    await expect(f.get(`http://lists.example:${port}/a.txt`)).rejects.toThrow(
      /^lists\.example resolves to a private, loopback, link-local, metadata or reserved address$/,
    );
    expect(server.requests.length).toBe(before);
    await f.close();
  });

  test('IP literals are checked as the address they are, whatever their spelling', async () => {
    const before = server.requests.length;
    const f = fetcherWith([], []);
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '127.1', '[::ffff:127.0.0.1]'])
      await expect(f.get(`http://${host}:${port}/a.txt`)).rejects.toThrow(/is a private, loopback/);
    expect(server.requests.length).toBe(before);
    await f.close();
  });
});
