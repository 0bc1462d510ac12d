import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { connect } from 'node:net';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { issueApiKey } from '../../src/server/auth/identity.js';
import { problemTitle } from '../../src/server/problem.js';
import { startServer as startFlc, type RunningServer } from '../../src/server/start.js';
import { appClient } from '../support/app-client.js';

const clock = Date.parse('2026-06-01T00:00:00Z');
const store = await openStore(':memory:');
const app = createApp({
  store,
  version: '1',
  now: () => clock,
  startedAt: clock,
  makeReader: () => {
    throw new Error('unused');
  },
});
const { call: request } = appClient(app);
const call = (method: string, path: string, token?: string, body?: unknown) => request(method, path, { token, body });
const password = { hash: 'x', salt: 'x', iterations: 1 };
const admin = await store.createUser({ email: 'root@example.org', role: 'admin', tier: 'admin', password });
await store.assignRole(admin.id, 'super-admin', 'test', new Date(clock).toISOString());
const adminSession = (await startSession(store, admin, clock)).token;
const owner = await store.createUser({ email: 'owner@example.org', role: 'user', tier: 'pro', password });
const session = (await startSession(store, owner, clock)).token;
const big = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes) });
const raw = (method: string, path: string, token: string, body: string) =>
  app.request(path, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });

describe('one body limit for every route', () => {
  test.each([
    ['POST', '/api/configuration/validate'],
    ['POST', '/api/configuration/resolve'],
    ['PATCH', `/api/admin/users/${owner.id}`],
    ['POST', '/admin/local-users'],
    ['POST', `/api/admin/users/${owner.id}/ban`],
  ])('%s %s refuses a body over 1 MiB with 413', async (method, path) => {
    const res = await raw(method, path, adminSession, big(1024 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ title: 'Content Too Large', status: 413 });
  });

  test('routes that need more keep their own limit', async () => {
    const list = JSON.stringify({ text: 'a\n'.repeat(500_000) });
    expect(list.length).toBeGreaterThan(1024 * 1024);
    expect((await raw('POST', '/api/validate', session, list)).status).toBe(200);
  });
});

describe('API keys cannot outgrow the key that made them', () => {
  const key = async (scopes: string[], days?: number) =>
    (await issueApiKey(store, owner, { name: 'k', scopes, expiresInDays: days }, clock)).text;

  test('a key expiring in a day cannot make one that expires later; by default its child expires with it', async () => {
    const parent = await key(['compile', 'keys'], 1);
    const later = await call('POST', '/api/keys', parent, { name: 'later', scopes: ['compile'], expiresInDays: 30 });
    expect(later.status).toBe(403);
    expect(later.json.detail).toMatch(/cannot expire after it/);
    const child = await call('POST', '/api/keys', parent, { name: 'child', scopes: ['compile'] });
    expect(child.status).toBe(201);
    expect(child.json.expiresAt).toBe(new Date(clock + 86_400_000).toISOString());
    const sooner = await call('POST', '/api/keys', parent, { name: 'sooner', scopes: ['compile'], expiresInDays: 1 });
    expect(sooner.status).toBe(201);
  });

  test('a key grants only scopes it has', async () => {
    const parent = await key(['compile', 'keys']);
    for (const scopes of [['rules'], ['admin'], ['compile', 'rules']]) {
      const res = await call('POST', '/api/keys', parent, { name: 'wider', scopes });
      expect(res.status, scopes.join()).toBe(403);
    }
    expect((await call('POST', '/api/keys', parent, { name: 'same', scopes: ['compile', 'keys'] })).status).toBe(201);
  });

  test('a key without the keys scope sees and revokes only itself, and creates none', async () => {
    const wide = (await call('POST', '/api/keys', session, { name: 'wide', scopes: ['compile', 'rules', 'keys'] }))
      .json;
    const narrow = await key(['compile']);
    const listed = await call('GET', '/api/keys', narrow);
    expect(listed.status).toBe(200);
    expect(listed.json.keys).toHaveLength(1);
    expect(listed.json.keys[0].prefix).toBe(narrow.slice(0, 12));
    expect((await call('DELETE', `/api/keys/${wide.id}`, narrow)).status).toBe(404);
    expect((await call('GET', '/api/keys', wide.key)).status).toBe(200);
    expect((await call('POST', '/api/keys', narrow, { name: 'more', scopes: ['compile'] })).status).toBe(403);
    expect((await call('DELETE', `/api/keys/${listed.json.keys[0].id}`, narrow)).status).toBe(200);
    expect((await call('GET', '/api/keys', narrow)).status).toBe(401);
    // With the keys scope, a key manages its owner's keys.
    expect((await call('GET', '/api/keys', wide.key)).json.keys.length).toBeGreaterThan(1);
  });
});

describe('problems', () => {
  test('every status has its reason phrase as title, never "Error"', () => {
    for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 422, 426, 429, 500, 502, 503, 504])
      expect(problemTitle(status), String(status)).not.toMatch(/^(Error|)$/);
    expect(problemTitle(401)).toBe('Unauthorized');
    expect(problemTitle(409)).toBe('Conflict');
    expect(problemTitle(415)).toBe('Unsupported Media Type');
  });

  test('a 401 carries WWW-Authenticate: Bearer and its title', async () => {
    for (const token of [undefined, 'flc_not-a-key', 'not-a-session']) {
      const res = await call('GET', '/api/keys', token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.json.title).toBe('Unauthorized');
    }
  });

  test('409 and 415 have their titles', async () => {
    const taken = { email: 'owner@example.org', password: 'a long password' };
    const conflict = await call('POST', '/api/auth/sign-up/email', undefined, taken);
    expect(conflict.status).toBe(409);
    expect(conflict.json.title).toBe('Conflict');
    const res = await app.request('/api/validate-rule', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${session}` },
      body: 'x',
    });
    expect(res.status).toBe(415);
    expect((await res.json()).title).toBe('Unsupported Media Type');
  });
});

describe('on the Node server', () => {
  let flc: RunningServer;
  const logged: string[] = [];
  let token: string;
  beforeAll(async () => {
    flc = await startFlc({
      host: '127.0.0.1',
      port: 0,
      version: '1',
      allowPrivateSources: false,
      store: { engine: 'sqlite', file: ':memory:' },
      log: (m) => logged.push(m),
      pool: { size: 1 },
    });
    const signUp = await fetch(`${flc.url}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'node@example.org', password: 'a long password' }),
    });
    token = (await signUp.json()).token;
  });
  afterAll(() => flc.close(1_000));

  test('a body over 1 MiB on a route without its own limit is a 413', async () => {
    const res = await fetch(`${flc.url}/api/configuration/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: big(2 * 1024 * 1024),
    });
    expect(res.status).toBe(413);
  });

  test('an aborted request body is not a server error', async () => {
    const { port } = new URL(flc.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      'POST /api/validate-rule HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        `authorization: Bearer ${token}\r\ncontent-length: 1000\r\n\r\n{"rule":`,
    );
    await new Promise((r) => setTimeout(r, 100));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 300));
    expect((await fetch(`${flc.url}/api/health`)).status).toBe(200);
    expect(logged.join('\n')).not.toMatch(/unhandled|stack|Error:/i);
  });

  /** The refusal a WebSocket upgrade gets with these headers. */
  const refusal = (headers: Record<string, string>) => {
    const ws = new WebSocket(`${flc.url.replace('http', 'ws')}/api/ws/compile`, { headers });
    ws.on('error', () => undefined); // the refusal closes it before it opens
    return new Promise<{ status?: number; headers: Record<string, unknown>; body: string }>((resolve) =>
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          ws.terminate();
          resolve({ status: res.statusCode, headers: res.headers, body });
        });
      }),
    );
  };

  test('a refused WebSocket upgrade carries its problem body (401, 403)', async () => {
    const anonymous = await refusal({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['content-type']).toBe('application/problem+json');
    expect(anonymous.headers['www-authenticate']).toBe('Bearer');
    expect(JSON.parse(anonymous.body)).toMatchObject({
      title: 'Unauthorized',
      status: 401,
      instance: '/api/ws/compile',
    });
    const created = await fetch(`${flc.url}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'rules only', scopes: ['rules'] }),
    });
    const rulesOnly = await refusal({ authorization: `Bearer ${(await created.json()).key}` });
    expect(rulesOnly.status).toBe(403);
    expect(JSON.parse(rulesOnly.body)).toMatchObject({
      title: 'Forbidden',
      detail: 'API key missing required scope: compile',
    });
  });

  test('a WebSocket message over 1 MiB closes the connection (1009)', async () => {
    const ws = new WebSocket(`${flc.url.replace('http', 'ws')}/api/ws/compile`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.send(JSON.stringify({ type: 'ping', pad: 'x'.repeat(1024 * 1024) }));
    expect(await closed).toBe(1009);
  });
});
