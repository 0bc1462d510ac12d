import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { startServer as startFlc, type RunningServer } from '../../src/server/start.js';
import { startServer as startLists, type TestServer } from '../support/http-server.js';

let flc: RunningServer;
let lists: TestServer;
let slowAborted = false;
/** Resolves when the slow source's download has reached its server. */
let slowRequested: () => void = () => undefined;
const slowStarted = new Promise<void>((resolve) => {
  slowRequested = resolve;
});
let token: string;

beforeAll(async () => {
  lists = await startLists((req, res) => {
    if (req.url === '/late.txt') {
      // Answers after the idle time (1.5 s) has passed with no client message.
      setTimeout(() => res.writeHead(200).end('||late.example.com^'), 2_500);
      return;
    }
    if (req.url === '/slow.txt') {
      req.socket.once('close', () => (slowAborted = true));
      slowRequested();
      return; // never answers: only a cancel ends it
    }
    res.writeHead(200).end('0.0.0.0 ads.example.com\n0.0.0.0 x.ads.example.com');
  });
  flc = await startFlc({
    host: '127.0.0.1',
    port: 0,
    version: '1.2.3',
    allowPrivateSources: true,
    store: { engine: 'sqlite', file: ':memory:' },
    log: () => undefined,
    wsTiming: { maxConcurrentCompilations: 3, heartbeatMs: 200, idleMs: 1_500 },
  });
  const signUp = await fetch(`${flc.url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ws@example.org', password: 'a long password' }),
  });
  token = (await signUp.json()).token;
});
afterAll(async () => {
  await flc.close(1_000);
  await lists.close();
});

/** A connected client that records every message. */
async function connect(path = '/api/ws/compile', bearer = token) {
  const ws = new WebSocket(flc.url.replace('http', 'ws') + path, { headers: { authorization: `Bearer ${bearer}` } });
  const messages: Record<string, unknown>[] = [];
  const waiters: { pred: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }[] =
    [];
  ws.on('message', (data) => {
    const m = JSON.parse(String(data));
    messages.push(m);
    for (const w of [...waiters]) {
      if (!w.pred(m)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(m);
    }
  });
  await new Promise((r) => ws.once('open', r));
  const next = (pred: (m: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const seen = messages.find(pred);
      if (seen) resolve(seen);
      else waiters.push({ pred, resolve });
    });
  return { ws, messages, next, send: (m: object) => ws.send(JSON.stringify(m)) };
}
const config = (file: string) => ({
  name: 'WS',
  sources: [{ source: `${lists.url}/${file}` }],
  transformations: ['Compress'],
});

describe('WebSocket compile protocol', () => {
  test('the upgrade needs a signed-in caller of the free tier or higher', async () => {
    for (const headers of [{}, { authorization: 'Bearer flcs_not-a-session' }]) {
      const ws = new WebSocket(`${flc.url.replace('http', 'ws')}/api/ws/compile`, { headers });
      const status = await new Promise<number>((resolve, reject) => {
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('open', () => reject(new Error('opened without credentials')));
        ws.once('error', () => undefined);
      });
      expect(status).toBe(401);
    }
  });

  test('welcome, then a compile with its events and the result', async () => {
    const c = await connect();
    expect(await c.next((m) => m.type === 'welcome')).toMatchObject({
      version: '1.2.3',
      capabilities: { maxConcurrentCompilations: 3, supportsPauseResume: false, supportsStreaming: true },
    });
    c.send({ type: 'compile', sessionId: 's1', configuration: config('a.txt') });
    const done = await c.next((m) => m.type === 'compile:complete');
    expect(done).toMatchObject({ sessionId: 's1', ruleCount: 1, metrics: { sourceCount: 1, ruleCount: 1 } });
    expect(done.rules).toContain('||ads.example.com^');
    const kinds = c.messages
      .filter((m) => m.sessionId === 's1')
      .map((m) => (m.type === 'event' ? `event:${m.eventType}` : m.type));
    expect(kinds).toEqual([
      'compile:started',
      'event:source:start',
      'event:cache',
      'event:network',
      'event:metric',
      'event:source:complete',
      'event:progress',
      'event:transformation:start',
      'event:transformation:complete',
      'event:progress',
      'compile:complete',
    ]);
    c.ws.close();
  });

  test('the WebSocket sends every event /api/compile/stream sends, in the same shapes', async () => {
    // A deprecated key (`url`) adds a warning; a diagnostic comes from the invalid rule Validate drops.
    const configuration = {
      name: 'both',
      sources: [{ url: `${lists.url}/a.txt` }],
      transformations: ['Validate'],
      exclusions: ['x.ads'],
    };
    const sse = await fetch(`${flc.url}/api/compile/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'cache-control': 'no-cache' },
      body: JSON.stringify({ configuration }),
    });
    const streamed = [...(await sse.text()).matchAll(/event: (.*)\ndata: (.*)\n/g)]
      .map(([, type, data]) => ({ type, data: JSON.parse(data) }))
      .filter((e) => e.type !== 'result' && e.type !== 'done');
    const c = await connect();
    c.send({ type: 'compile', sessionId: 'same', configuration });
    await c.next((m) => m.type === 'compile:complete' && m.sessionId === 'same');
    const sent = c.messages
      .filter((m) => m.type === 'event' && m.sessionId === 'same')
      .map((m) => ({ type: String(m.eventType), data: m.data as Record<string, unknown> }));
    c.ws.close();
    // Type by type, in order; each payload with the same keys (values such as times and ids differ).
    const shape = (events: { type: string; data: Record<string, unknown> }[]) =>
      events.map((e) => `${e.type}(${Object.keys(e.data).sort().join(',')})`);
    expect(shape(sent)).toEqual(shape(streamed));
    expect(sent.map((e) => e.type)).toEqual(expect.arrayContaining(['log', 'network', 'cache', 'metric']));
    expect(sent.find((e) => e.type === 'log')?.data).toMatchObject({
      level: 'warn',
      message: expect.stringMatching(/url/),
    });
    for (const e of sent) expect(e.data, e.type).not.toHaveProperty('type');
  });

  test('each compile asks the gate again: a key revoked since the upgrade compiles nothing more', async () => {
    const asUser = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const made = await fetch(`${flc.url}/api/keys`, {
      method: 'POST',
      headers: asUser,
      body: JSON.stringify({ name: 'ws', scopes: ['compile'] }),
    });
    const key = await made.json();
    const c = await connect('/api/ws/compile', key.key);
    c.send({ type: 'compile', sessionId: 'before', configuration: config('a.txt') });
    expect(
      await c.next((m) => m.sessionId === 'before' && m.type !== 'event' && m.type !== 'compile:started'),
    ).toMatchObject({
      type: 'compile:complete',
    });
    expect((await fetch(`${flc.url}/api/keys/${key.id}`, { method: 'DELETE', headers: asUser })).status).toBe(200);
    const closed = new Promise<number>((resolve) => c.ws.once('close', resolve));
    c.send({ type: 'compile', sessionId: 'after', configuration: config('a.txt') });
    expect(await c.next((m) => m.sessionId === 'after')).toMatchObject({ type: 'error', code: 'ACCESS_REFUSED' });
    expect(await closed).toBe(4003);
    expect(c.messages.some((m) => m.type === 'compile:started' && m.sessionId === 'after')).toBe(false);
  });

  test('ping gets pong; a heartbeat arrives on its own; bad messages get an error', async () => {
    const c = await connect('/ws/compile');
    c.send({ type: 'ping' });
    expect(await c.next((m) => m.type === 'pong')).toHaveProperty('timestamp');
    expect(await c.next((m) => m.type === 'heartbeat')).toHaveProperty('timestamp');
    c.ws.send('not json');
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'INVALID_MESSAGE' });
    c.ws.close();
  });

  test('cancel stops the work: the download is aborted and compile:cancelled answers', async () => {
    const c = await connect();
    c.send({ type: 'compile', sessionId: 'slow', configuration: config('slow.txt') });
    await c.next((m) => m.type === 'event' && m.eventType === 'source:start');
    // Cancelled once the download is under way (a cancel before it would leave nothing to abort).
    await slowStarted;
    c.send({ type: 'cancel', sessionId: 'slow' });
    expect(await c.next((m) => m.type === 'compile:cancelled')).toMatchObject({ sessionId: 'slow' });
    // The source server sees its connection close a moment later: waited for, up to 5 s on a busy machine.
    for (let waited = 0; !slowAborted && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(slowAborted).toBe(true);
    c.ws.close();
  });

  test('a fourth concurrent compilation is refused with TOO_MANY_COMPILATIONS', async () => {
    const c = await connect();
    for (const id of ['a', 'b', 'c', 'd'])
      c.send({ type: 'compile', sessionId: id, configuration: config('slow.txt') });
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'TOO_MANY_COMPILATIONS', sessionId: 'd' });
    for (const id of ['a', 'b', 'c']) c.send({ type: 'cancel', sessionId: id });
    for (const id of ['a', 'b', 'c']) await c.next((m) => m.type === 'compile:cancelled' && m.sessionId === id);
    c.ws.close();
  });

  test('an invalid configuration is a compile:error without a stack', async () => {
    const c = await connect();
    c.send({ type: 'compile', sessionId: 'bad', configuration: { name: 'x', sources: [] } });
    const error = await c.next((m) => m.type === 'compile:error');
    expect(error).toMatchObject({ sessionId: 'bad', details: { code: 'CONFIG_INVALID' } });
    expect(JSON.stringify(error)).not.toMatch(/at .*\.js/);
    c.ws.close();
  });

  test('a compilation longer than the idle time completes, and idleness counts from its end', async () => {
    const c = await connect();
    let closedAt = 0;
    c.ws.once('close', () => (closedAt = Date.now()));
    c.send({ type: 'compile', sessionId: 'late', configuration: config('late.txt') });
    const done = await Promise.race([
      c.next((m) => m.type === 'compile:complete'),
      new Promise<null>((r) => c.ws.once('close', () => r(null))),
    ]);
    expect(done).toMatchObject({ sessionId: 'late', ruleCount: 1 });
    const completedAt = Date.now();
    await new Promise((r) => c.ws.once('close', r));
    expect(closedAt - completedAt).toBeGreaterThanOrEqual(1_000);
  });

  test('an idle connection is closed', async () => {
    const c = await connect();
    const closed = await new Promise<{ code: number; reason: string }>((r) =>
      c.ws.once('close', (code, reason) => r({ code, reason: String(reason) })),
    );
    expect(closed).toEqual({ code: 4000, reason: 'idle timeout' });
  });
});
