import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testApp } from '../support/test-app.js';
import { startServer as startLists, type TestServer } from '../support/http-server.js';
import { startServer as startFlc, type RunningServer } from '../../src/server/start.js';
import { SafeSourceReader } from '../../src/node/safe-reader.js';
import { CompilePool } from '../../src/node/compile-pool.js';
import { addressPolicy, isPublicAddress } from '../../src/node/address-policy.js';

/**
 * The server with its default address policy, except that 127.0.0.2 plays a public host on the
 * Internet: it answers with redirects (and lists whose includes redirect) to the internal
 * service on 127.0.0.1, in every spelling an address can take. The internal service counts
 * its requests; it must never see one.
 */
const policy = addressPolicy({ isPublic: (a) => a === '127.0.0.2' || isPublicAddress(a) });
let internal: TestServer;
let publicHost: Server;
let publicUrl: string;
const publicHits = new Map<string, number>();
let flc: RunningServer;
const pool = new CompilePool({ size: 2, deadlineMs: 20_000 });
const { request } = testApp({
  pool,
  makeReader: () =>
    new SafeSourceReader({
      allowPrivate: false,
      policy,
      timeoutMs: 5_000,
      retries: 2,
      maxBytes: 1 << 20,
      userAgent: 't',
    }),
});
const post = (path: string, body: unknown) =>
  request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Where a public redirect may send a download: the internal service, spelled every way. */
const internalForms = (port: number) => [
  `http://127.0.0.1:${port}/secret`,
  `http://2130706433:${port}/secret`,
  `http://0x7f.1:${port}/secret`,
  `http://0177.0.0.1:${port}/secret`,
  `http://127.1:${port}/secret`,
  `http://[::ffff:127.0.0.1]:${port}/secret`,
  `http://[::ffff:7f00:1]:${port}/secret`,
  `http://[::1]:${port}/secret`,
  `http://localhost:${port}/secret`,
];
let forms: string[] = [];
/** Sources on the public host: one redirect per form, and one list per form whose same-origin include redirects. */
const redirectSources = () => forms.map((_, i) => `${publicUrl}/redirect/${i}`);
const includeSources = () => forms.map((_, i) => `${publicUrl}/including/${i}`);
const configOf = (sources: string[], onSourceError?: 'skip') => ({
  name: 'ssrf',
  sources: sources.map((source) => ({ source })),
  ...(onSourceError ? { onSourceError } : {}),
});

beforeAll(async () => {
  internal = await startLists((_req, res) => res.end('internal secret\n'));
  forms = internalForms(Number(new URL(internal.url).port));
  publicHost = createServer((req, res) => {
    const path = req.url ?? '';
    publicHits.set(path, (publicHits.get(path) ?? 0) + 1);
    const [, kind, n] = path.split('/');
    if (kind === 'redirect') return void res.writeHead(302, { location: forms[Number(n)] }).end();
    if (kind === 'hop' && Number(n) <= 5) return void res.writeHead(302, { location: `/hop/${Number(n) + 1}` }).end();
    if (kind === 'loop') return void res.writeHead(301, { location: '/loop' }).end();
    if (kind === 'including') return void res.end(`||public.example^\n!#include /redirect/${n}\n`);
    res.end('||public.example^\n');
  });
  await new Promise<void>((r) => publicHost.listen(0, '127.0.0.2', r));
  publicUrl = `http://127.0.0.2:${(publicHost.address() as AddressInfo).port}`;
  flc = await startFlc({
    host: '127.0.0.1',
    port: 0,
    version: '1',
    allowPrivateSources: false,
    addressPolicy: policy,
    store: { engine: 'sqlite', file: ':memory:' },
    log: () => undefined,
    pool: { size: 1 },
  });
});
afterAll(async () => {
  await flc.close(1_000);
  await pool.destroy();
  await internal.close();
  publicHost.closeAllConnections();
  await new Promise((r) => publicHost.close(r));
});

describe('no server compile reaches a private address, whatever the redirect or include', () => {
  test('a public source is compiled (the injected policy lets 127.0.0.2 through)', async () => {
    const res = await post('/api/compile', { configuration: configOf([`${publicUrl}/list.txt`]) });
    expect(res.status).toBe(200);
    expect((await res.json()).rules).toContain('||public.example^');
  });

  test('/api/compile: every redirect and include form is a 422 naming the source', async () => {
    for (const source of [...redirectSources(), ...includeSources()]) {
      const res = await post('/api/compile', { configuration: configOf([source]) });
      expect(res.status, source).toBe(422);
      const { error } = await res.json();
      // An include's redirect to another host is refused by the origin rule, before any address.
      const why = source.includes('/including/') ? /not on the origin/ : /(private, loopback|resolves to)/;
      expect(error).toMatch(/refused: /);
      expect(error).toMatch(why);
      expect(error).toContain(source.includes('/including/') ? `${publicUrl}/redirect/` : source);
    }
  });

  test('/api/compile/batch: every form fails in its own result', async () => {
    const sources = [...redirectSources(), ...includeSources()];
    for (let at = 0; at < sources.length; at += 10) {
      const requests = sources.slice(at, at + 10).map((s, i) => ({ id: String(at + i), configuration: configOf([s]) }));
      const res = await post('/api/compile/batch', { requests });
      expect(res.status).toBe(200);
      for (const result of (await res.json()).results) {
        expect(result.success).toBe(false);
        expect(result.error).toMatch(/refused: /);
      }
    }
  });

  test('/api/compile/stream: every form is a refused source event', async () => {
    const sources = [...redirectSources(), ...includeSources()];
    const res = await post('/api/compile/stream', { configuration: configOf(sources, 'skip') });
    const text = await res.text();
    expect(text.match(/^event: source:error\ndata: .*refused: /gm)).toHaveLength(sources.length);
    expect(text).not.toContain('internal secret');
  });

  test('WebSocket: every form is a refused source event', async () => {
    const signUp = await fetch(`${flc.url}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ssrf@example.org', password: 'a long password' }),
    });
    const { token } = await signUp.json();
    const ws = new WebSocket(`${flc.url.replace('http', 'ws')}/api/ws/compile`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const messages: { type: string; eventType?: string; data?: { error?: string }; rules?: string[] }[] = [];
    const ended = new Promise<void>((resolve) =>
      ws.on('message', (raw) => {
        const m = JSON.parse(String(raw));
        messages.push(m);
        if (m.type === 'compile:complete' || m.type === 'compile:error') resolve();
      }),
    );
    await new Promise((r) => ws.once('open', r));
    const sources = [...redirectSources(), ...includeSources()];
    ws.send(JSON.stringify({ type: 'compile', sessionId: 's', configuration: configOf(sources, 'skip') }));
    await ended;
    ws.close();
    const refused = messages.filter((m) => m.eventType === 'source:error' && /refused: /.test(m.data?.error ?? ''));
    expect(refused).toHaveLength(sources.length);
    expect(JSON.stringify(messages)).not.toContain('internal secret');
  });

  test('a redirect loop costs 6 requests (5 redirects), is refused and not retried', async () => {
    publicHits.delete('/loop');
    const res = await post('/api/compile', { configuration: configOf([`${publicUrl}/loop`]) });
    expect(res.status).toBe(422);
    expect((await res.json()).error).toMatch(/refused: more than 5 redirects/);
    expect(publicHits.get('/loop')).toBe(6);
    // Five redirects are followed.
    const five = await post('/api/compile', { configuration: configOf([`${publicUrl}/hop/1`]) });
    expect(five.status).toBe(200);
  });

  test('an unreachable source is a 502 that does not say why (no port-scan oracle)', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.2', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const res = await post('/api/compile', { configuration: configOf([`http://127.0.0.2:${port}/list.txt`]) });
    expect(res.status).toBe(502);
    const { detail } = await res.json();
    expect(detail).toMatch(/failed: the download failed/);
    expect(detail).not.toMatch(/ECONNREFUSED|connect/i);
  });

  test('the internal service never saw a request', () => {
    expect(internal.requests).toHaveLength(0);
  });
});
