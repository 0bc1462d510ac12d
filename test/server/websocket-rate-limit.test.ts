import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { call, PASSWORD } from '../support/serve-accounts.js';

let server: ServeProcess;
let dir: string;
let token: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flc-ws-limit-'));
  server = await startServe(['--db', join(dir, 'flc.db')]);
  const up = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, {
    email: 'ws-limit@example.org',
    password: PASSWORD,
  });
  expect(up.status, up.text).toBe(200);
  token = up.json.token as string;
}, 30_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A connection whose messages are read in order, one at a time. */
async function connect(as = token) {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/ws/compile`, {
    headers: { authorization: `Bearer ${as}` },
  });
  const inbox: Record<string, unknown>[] = [];
  let wake = () => undefined as void;
  ws.on('message', (data) => {
    inbox.push(JSON.parse(String(data)));
    wake();
  });
  await new Promise((r) => ws.once('open', r));
  /** The next message of a type other than heartbeat and welcome. */
  const next = async () => {
    for (;;) {
      const m = inbox.shift();
      if (m && m.type !== 'welcome' && m.type !== 'heartbeat') return m;
      if (!m) await new Promise<void>((r) => (wake = r));
    }
  };
  return { ws, next };
}

// A configuration the compile refuses at once (no sources): each message is still a compile asked for.
const compile = (sessionId: string) => JSON.stringify({ type: 'compile', sessionId, configuration: { name: 'x' } });

test('each WebSocket compile counts against the rate limit of POST /api/compile, on its key', async () => {
  const { ws, next } = await connect();
  // The free tier allows 60 requests a minute; the upgrade was the first.
  const answers: string[] = [];
  for (let i = 0; i < 62; i++) {
    ws.send(compile(`s${i}`));
    const m = await next();
    answers.push(String(m.code ?? m.type));
    if (m.code === 'RATE_LIMITED') expect(String(m.error)).toMatch(/60 requests per minute for the free tier/);
  }
  expect(answers.slice(0, 59).every((a) => a === 'compile:error')).toBe(true);
  expect(answers.slice(59)).toEqual(['RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
  ws.close();
  // The same counter as HTTP: the caller's next compile request is refused too.
  const res = await call(server.url, 'POST', '/api/compile', token, { configuration: { name: 'x' } });
  expect(res.status).toBe(429);
}, 60_000);

test('a large message of any type counts against the rate limit before it is read', async () => {
  const up = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, {
    email: 'ws-large@example.org',
    password: PASSWORD,
  });
  const { ws, next } = await connect(up.json.token as string);
  // A ping padded past 4 KiB, then invalid JSON of the same size: each once cost a parse, unmetered.
  const padded = `{"type":"ping"${' '.repeat(5_000)}}`;
  const invalid = `{${'x'.repeat(5_000)}`;
  const answers: string[] = [];
  for (let i = 0; i < 62; i++) {
    ws.send(i % 2 === 0 ? padded : invalid);
    const m = await next();
    answers.push(String(m.code ?? m.type));
  }
  // The upgrade was the first of 60 requests a minute.
  expect(answers.slice(0, 59).every((a) => a === 'pong' || a === 'INVALID_MESSAGE')).toBe(true);
  expect(answers.slice(59)).toEqual(['RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
  // A small ping is still answered: a client keeps its connection alive past the limit.
  ws.send(JSON.stringify({ type: 'ping' }));
  expect((await next()).type).toBe('pong');
  ws.close();
}, 60_000);
