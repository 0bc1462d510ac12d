import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import type { Socket } from 'node:net';
import { startServer as startFlc, type RunningServer } from '../../src/server/start.js';
import { startServer as startLists, type TestServer } from '../support/http-server.js';

let flc: RunningServer;
let lists: TestServer;
let token: string;
// About 8 MB of rules: more than the loopback socket buffers hold, far more than the bound below.
const BIG = Array.from({ length: 300_000 }, (_, i) => `||host-${i}.backpressure.example^`).join('\n');

beforeAll(async () => {
  lists = await startLists((_req, res) => res.writeHead(200).end(BIG));
  flc = await startFlc({
    host: '127.0.0.1',
    port: 0,
    version: '1.2.3',
    allowPrivateSources: true,
    store: { engine: 'sqlite', file: ':memory:' },
    log: () => undefined,
    wsTiming: {
      maxConcurrentCompilations: 3,
      heartbeatMs: 100,
      idleMs: 60_000,
      maxBufferedBytes: 256 * 1024,
      drainMs: 1_000,
    },
  });
  const signUp = await fetch(`${flc.url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'wsb@example.org', password: 'a long password' }),
  });
  token = (await signUp.json()).token;
}, 30_000);
afterAll(async () => {
  await flc.close(1_000);
  await lists.close();
});

/** Connects, asks for one compile of the big list, and tells how the connection ended. */
async function compileBig(read: boolean) {
  const ws = new WebSocket(`${flc.url.replace('http', 'ws')}/api/ws/compile`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const types: string[] = [];
  ws.on('message', (data) => types.push(JSON.parse(String(data)).type));
  await new Promise((r) => ws.once('open', r));
  const socket = (ws as unknown as { _socket: Socket })._socket;
  if (!read) socket.pause();
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  ws.send(
    JSON.stringify({
      type: 'compile',
      sessionId: 's',
      configuration: { name: 'B', sources: [{ source: `${lists.url}/big.txt` }] },
    }),
  );
  if (read) {
    await new Promise<void>((r) => ws.on('message', (d) => JSON.parse(String(d)).type === 'compile:complete' && r()));
    ws.close();
    await closed;
    return types;
  }
  // Long enough for the compile and several heartbeats behind its unread result.
  await new Promise((r) => setTimeout(r, 6_000));
  socket.resume();
  const code = await closed;
  return [...types, `closed ${code}`];
}

test('a client that reads gets a result larger than the bound', async () => {
  expect(await compileBig(true)).toContain('compile:complete');
}, 30_000);

test('a client that stops reading is cut off once its unsent messages pass the bound', async () => {
  const seen = await compileBig(false);
  // The connection ends abnormally (no close frame: it was cut), and the unread result never arrives whole.
  expect(seen.at(-1)).toBe('closed 1006');
  expect(seen).not.toContain('compile:complete');
}, 30_000);
