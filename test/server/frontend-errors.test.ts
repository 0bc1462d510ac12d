import { describe, expect, test, vi } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { FRONTEND_ERROR_LIMITS } from '../../src/server/routes/frontend-errors.js';

const now = Date.parse('2026-04-01T12:00:00Z');
const store = await openStore(':memory:');
await store.updateConfigRow('tiers', { tier_name: 'anonymous' }, { rate_limit: 0 }, new Date(now).toISOString());
const app = createApp({
  store,
  version: '1',
  now: () => now,
  startedAt: now,
  makeReader: () => {
    throw new Error('unused');
  },
});
const admin = await store.createUser({
  email: 'admin@example.org',
  role: 'admin',
  tier: 'admin',
  password: { hash: 'h', salt: 's', iterations: 1 },
});
await store.assignRole(admin.id, 'viewer', 'test', new Date(now).toISOString());
const adminToken = (await startSession(store, admin, now)).token;

const post = (body: unknown, headers: Record<string, string> = {}) =>
  app.request('/api/log/frontend-error', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const recent = async (query = '') => {
  const res = await app.request(`/api/admin/errors${query}`, { headers: { authorization: `Bearer ${adminToken}` } });
  return res.json();
};
const good = { source: 'angular', severity: 'high', message: 'TypeError: x is undefined' };

describe('POST /api/log/frontend-error', () => {
  test('204 without a body, then the event is stored with the server-set source', async () => {
    const res = await post(
      {
        ...good,
        stack: 'at f (app.js:1)',
        context: { route: '/home', n: 1 },
        url: 'https://app.example/home',
        sessionId: 's1',
      },
      { 'user-agent': 'Mozilla/5.0 test' },
    );
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    await vi.waitFor(async () => expect((await recent()).total).toBe(1));
    const [event] = (await recent()).events;
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      source: 'frontend',
      severity: 'high',
      message: 'TypeError: x is undefined',
      stack: 'at f (app.js:1)',
      context: '{"route":"/home","n":1}',
      url: 'https://app.example/home',
      userAgent: 'Mozilla/5.0 test',
      sessionId: 's1',
      createdAt: '2026-04-01T12:00:00.000Z',
    });
  });

  test('the insert happens after the answer', async () => {
    const before = (await recent()).total;
    const res = await post({ ...good, message: 'later' });
    expect(res.status).toBe(204);
    // The answer is out; the row is not yet (it is written on a later turn of the event loop).
    expect((await store.errorEvents(100, 0)).total).toBe(before);
    await vi.waitFor(async () => expect((await recent()).total).toBe(before + 1));
  });

  const L = FRONTEND_ERROR_LIMITS;
  test.each([
    ['message at its limit', { ...good, message: 'm'.repeat(L.message) }, 204],
    ['message over 2048', { ...good, message: 'm'.repeat(L.message + 1) }, 422],
    ['empty message', { ...good, message: '' }, 422],
    ['stack over 8192', { ...good, stack: 's'.repeat(L.stack + 1) }, 422],
    ['userAgent over 512', { ...good, userAgent: 'u'.repeat(L.userAgent + 1) }, 422],
    ['sessionId over 128', { ...good, sessionId: 'i'.repeat(L.sessionId + 1) }, 422],
    ['a URL that is not one', { ...good, url: 'not a url' }, 422],
    ['a javascript: URL', { ...good, url: 'javascript:alert(1)' }, 422],
    ['an unknown source', { ...good, source: 'server' }, 422],
    ['an unknown severity', { ...good, severity: 'fatal' }, 422],
    ['context not an object', { ...good, context: [1, 2] }, 422],
    ['no source', { severity: 'low', message: 'x' }, 422],
  ])('%s -> %i', async (_name, body, status) => {
    const res = await post(body);
    expect(res.status).toBe(status);
    if (status !== 204) expect(res.headers.get('content-type')).toBe('application/problem+json');
  });

  test('a body over 64 KB is 413 before parsing; malformed JSON 400', async () => {
    const big = await post({ ...good, context: { pad: 'x'.repeat(L.bodyBytes) } });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toBe('application/problem+json');
    const bad = await post('{"source":');
    expect(bad.status).toBe(400);
  });
});

describe('GET /api/admin/errors', () => {
  test('administrators with admin:read only; paged, newest first', async () => {
    expect((await app.request('/api/admin/errors')).status).toBe(401);
    const page = await recent('?limit=1&offset=0');
    expect(page).toMatchObject({ success: true, limit: 1, offset: 0 });
    expect(page.events).toHaveLength(1);
    const bad = await app.request('/api/admin/errors?limit=0', { headers: { authorization: `Bearer ${adminToken}` } });
    expect(bad.status).toBe(422);
  });
});

describe('ErrorEventWriter', () => {
  test('flush waits for the inserts scheduled so far; a failed insert is logged, not thrown', async () => {
    const { ErrorEventWriter } = await import('../../src/server/error-events.js');
    const own = await openStore(':memory:');
    const logged: string[] = [];
    const writer = new ErrorEventWriter(own, (m) => logged.push(m));
    const base = { source: 'frontend', severity: 'low' as const, message: 'm', stack: null, context: null, url: null };
    const event = { ...base, userAgent: null, sessionId: null, createdAt: '2026-01-01T00:00:00.000Z' };
    writer.schedule('client', { ...event, id: 'a' });
    writer.schedule('client', { ...event, id: 'a' }); // the same id again: its insert fails
    await writer.flush();
    expect((await own.errorEvents(10, 0)).total).toBe(1);
    expect(logged).toEqual([expect.stringMatching(/^frontend-error: cannot store event a: /)]);
    await own.close();
  });
});
