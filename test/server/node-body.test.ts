import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from 'node:http';
import { startServer, type RunningServer } from '../../src/server/start.js';
import { BODY_LIMITS } from '../../src/server/routes/rules.js';

let server: RunningServer;
let token: string;
beforeAll(async () => {
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    version: '1.0.0',
    allowPrivateSources: false,
    store: { engine: 'sqlite', file: ':memory:' },
    log: () => undefined,
  });
  const signUp = await fetch(`${server.url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'body@example.org', password: 'a long password' }),
  });
  token = (await signUp.json()).token;
});
afterAll(() => server.close(1_000));

/** A raw HTTP request, so the body can be sent with or without Content-Length. */
function send(path: string, body: string, chunked = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.url);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
    };
    if (!chunked) headers['content-length'] = Buffer.byteLength(body);
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    if (chunked) {
      for (let i = 0; i < body.length; i += 16_384) req.write(body.slice(i, i + 16_384));
      req.end();
    } else req.end(body);
  });
}

describe('request bodies on the Node server (read from the socket)', () => {
  test('a valid body is parsed and answered', async () => {
    const res = await send('/api/validate-rule', JSON.stringify({ rule: '||ünïcode.example^' }));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ valid: true, rule: '||ünïcode.example^' });
  });

  test('malformed JSON is 400', async () => {
    const res = await send('/api/validate-rule', '{"rule": ');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ detail: 'Malformed JSON in request body' });
  });

  test('a schema failure is 422', async () => {
    const res = await send('/api/validate-rule', JSON.stringify({ rule: '' }));
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body)).toEqual({ success: false, error: 'rule must not be empty' });
  });

  test.each([false, true])('an oversized body is 413 (chunked: %s)', async (chunked) => {
    const res = await send('/api/validate-rule', JSON.stringify({ rule: 'a'.repeat(BODY_LIMITS.rule) }), chunked);
    expect(res.status).toBe(413);
  });

  test('compile bodies go through the same path (a refused source is 422)', async () => {
    const res = await send(
      '/api/compile',
      JSON.stringify({ configuration: { name: 'x', sources: [{ source: 'file:///etc/passwd' }] } }),
    );
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body).error).toContain('file:///etc/passwd');
  });
});
