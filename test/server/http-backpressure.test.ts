import { afterAll, beforeAll, expect, test } from 'vitest';
import { connect } from 'node:net';
import { startServer as startFlc, type RunningServer } from '../../src/server/start.js';
import { startServer as startLists, type TestServer } from '../support/http-server.js';

let flc: RunningServer;
let lists: TestServer;
let token: string;
// About 10 MB of rules: an answer far larger than the loopback socket buffers and the bound below.
const BIG = Array.from({ length: 300_000 }, (_, i) => `||host-${i}.http-backpressure.example^`).join('\n');

beforeAll(async () => {
  lists = await startLists((_req, res) => res.writeHead(200).end(BIG));
  flc = await startFlc({
    host: '127.0.0.1',
    port: 0,
    version: '1.2.3',
    allowPrivateSources: true,
    store: { engine: 'sqlite', file: ':memory:' },
    log: () => undefined,
    maxUnsentBytes: 256 * 1024,
    unsentGraceMs: 1_000,
  });
  const signUp = await fetch(`${flc.url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'hb@example.org', password: 'a long password' }),
  });
  token = (await signUp.json()).token;
}, 30_000);
afterAll(async () => {
  await flc.close(1_000);
  await lists.close();
});

const body = (file: string) =>
  JSON.stringify({ configuration: { name: 'B', sources: [{ source: `${lists.url}/${file}` }] } });

test('a client that stops reading a large compile answer is cut; one that reads gets it whole', async () => {
  const { hostname, port } = new URL(flc.url);
  const socket = connect(Number(port), hostname);
  await new Promise((r) => socket.once('connect', r));
  const payload = body('unread.txt');
  socket.write(
    `POST /api/compile HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${token}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
  );
  // Reads the head, then nothing for 4 s (four times the grace), then the rest.
  let received = 0;
  const head = await new Promise<string>((r) =>
    socket.once('data', (d) => {
      received += d.length;
      r(String(d));
    }),
  );
  socket.pause();
  expect(head).toMatch(/^HTTP\/1.1 200/);
  const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
  expect(length).toBeGreaterThan(10_000_000);
  await new Promise((r) => setTimeout(r, 4_000));
  socket.on('data', (d) => {
    received += d.length;
  });
  socket.on('error', () => undefined);
  socket.resume();
  await new Promise((r) => socket.once('close', r));
  // Cut: the rest of the answer never came (what the socket buffers held did).
  expect(received).toBeLessThan(length);
  // A client that reads gets the whole answer.
  const res = await fetch(`${flc.url}/api/compile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body('read.txt'),
  });
  expect(res.status).toBe(200);
  expect((await res.json()).ruleCount).toBe(300_000);
}, 60_000);
