import { afterAll, describe, expect, test } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { call, PASSWORD } from '../support/serve-accounts.js';

const dir = mkdtempSync(join(tmpdir(), 'flc-sources-'));
let server: ServeProcess | undefined;
const ports: number[] = [];
const lists = createServer((req, res) => {
  ports.push(req.socket.remotePort ?? 0);
  if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
  res.writeHead(200, { etag: '"v1"', 'content-type': 'text/plain' }).end('||kept.example^\n');
});
await new Promise<void>((done) => lists.listen(0, '127.0.0.1', done));
afterAll(async () => {
  await server?.stop();
  lists.closeAllConnections();
  lists.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('flc serve source downloads', () => {
  test('the revalidations of compile-cache hits reuse one kept-alive connection to the list host', async () => {
    server = await startServe(['--db', join(dir, 'flc.db'), '--allow-private-sources']);
    const source = `http://127.0.0.1:${(lists.address() as AddressInfo).port}/a.txt`;
    const up = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, {
      email: 'u@example.org',
      password: PASSWORD,
    });
    const answers: (string | null)[] = [];
    for (let n = 0; n < 4; n += 1) {
      const res = await fetch(`${server.url}/api/compile`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${up.json.token}` },
        body: JSON.stringify({ configuration: { name: 'C', sources: [{ source }] } }),
      });
      expect(res.status).toBe(200);
      answers.push(res.headers.get('x-cache'));
    }
    expect(answers).toEqual(['MISS', 'HIT', 'HIT', 'HIT']);
    expect(ports).toHaveLength(4);
    expect(new Set(ports).size).toBe(1);
  });
});
