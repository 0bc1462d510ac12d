import { describe, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { issueFlash } from '../../src/server/flash/flash-messages.js';
import { issueApiKey } from '../../src/server/auth/identity.js';

const start = Date.parse('2026-03-01T00:00:00Z');
let clock = start;
const store = await openStore(':memory:');
// These tests read many tokens from one address; the anonymous limit is the access tests' subject.
await store.updateConfigRow('tiers', { tier_name: 'anonymous' }, { rate_limit: 0 }, new Date(start).toISOString());
await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 0 }, new Date(start).toISOString());
const settings = { lifetimeMs: 60_000, loginLocation: '/login?from=api' };
const app = createApp({
  store,
  version: '1',
  now: () => clock,
  startedAt: start,
  makeReader: () => {
    throw new Error('unused');
  },
  flash: settings,
});
const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('flash messages', () => {
  test('a token reads once (200, resolved through the registry), then 404', async () => {
    clock = start;
    const token = await issueFlash(store, settings, clock, {
      code: 'RATE_LIMITED',
      message: 'Slow down',
      type: 'error',
    });
    expect(token).toMatch(uuid);
    const first = await app.request(`/api/flash/${token}`);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({
      success: true,
      code: 'RATE_LIMITED',
      message: 'Slow down',
      severity: 'medium',
      type: 'error',
      createdAt: '2026-03-01T00:00:00.000Z',
    });
    const second = await app.request(`/api/flash/${token}`);
    expect(second.status).toBe(404);
    expect(second.headers.get('content-type')).toBe('application/problem+json');
  });

  test('unknown, consumed, expired and malformed tokens get one identical 404', async () => {
    clock = start;
    const consumed = await issueFlash(store, settings, clock, { message: 'x' });
    await app.request(`/api/flash/${consumed}`);
    const expired = await issueFlash(store, settings, clock, { message: 'y' });
    clock = start + 60_000; // the injected clock: exactly the lifetime later
    const bodies = [];
    for (const token of [consumed, expired, '6f1c3c0e-4f43-4c55-9d6b-2f0d1b7f9a11', 'not-a-uuid', expired]) {
      const res = await app.request(`/api/flash/${token}`);
      expect(res.status).toBe(404);
      bodies.push(await res.text());
    }
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0])).toMatchObject({ status: 404, title: 'Not Found' });
  });

  test('a token read a moment before its expiry is still served', async () => {
    clock = start;
    const token = await issueFlash(store, settings, clock, { message: 'z' });
    clock = start + 59_999;
    expect((await app.request(`/api/flash/${token}`)).status).toBe(200);
  });

  test('an untyped message is info and resolves as UNKNOWN with its own text', async () => {
    clock = start;
    const token = await issueFlash(store, settings, clock, { message: 'Saved' });
    expect(await (await app.request(`/api/flash/${token}`)).json()).toMatchObject({
      code: 'UNKNOWN',
      message: 'Saved',
      type: 'info',
    });
  });

  test('the legacy error parameter resolves through the same registry', async () => {
    const known = await (await app.request('/api/flash?error=ACCOUNT_LOCKED')).json();
    expect(known).toMatchObject({ success: true, code: 'ACCOUNT_LOCKED', severity: 'high', ctaRoute: '/support' });
    for (const q of ['', '?error=', '?error=constructor', '?error=nope']) {
      expect(await (await app.request(`/api/flash${q}`)).json()).toMatchObject({ code: 'UNKNOWN', severity: 'medium' });
    }
  });
});

describe('the redirect contract', () => {
  test('a page request refused for want of a session: 302 to the login location with flash=<token>', async () => {
    clock = start;
    const res = await app.request('/api/keys', { headers: html });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '', 'http://x');
    expect(location.pathname).toBe('/login');
    expect(location.searchParams.get('from')).toBe('api');
    const token = location.searchParams.get('flash') ?? '';
    expect(token).toMatch(uuid);
    const payload = await (await app.request(`/api/flash/${token}`)).json();
    expect(payload).toMatchObject({ code: 'TOKEN_EXPIRED', message: 'Authentication required', ctaRoute: '/login' });
    expect((await app.request(`/api/flash/${token}`)).status).toBe(404);
  });

  test('a refused administrator page and a banned account say so in their flash', async () => {
    clock = start;
    const user = await store.createUser({
      email: 'page@example.org',
      role: 'user',
      tier: 'free',
      password: { hash: 'h', salt: 's', iterations: 1 },
    });
    const { token: session } = await startSession(store, user, clock);
    const forbidden = await app.request('/api/admin/errors', {
      headers: { ...html, authorization: `Bearer ${session}` },
    });
    expect(forbidden.status).toBe(302);
    const flash = new URL(forbidden.headers.get('location') ?? '', 'http://x').searchParams.get('flash');
    expect(await (await app.request(`/api/flash/${flash}`)).json()).toMatchObject({
      code: 'FORBIDDEN',
      severity: 'high',
    });
    // A ban ends the sessions (a 401 then); the user's key is refused as banned (403).
    const key = (await issueApiKey(store, user, { name: 'k', scopes: ['compile'] }, clock)).text;
    await store.updateUser(user.id, { banned: true, banReason: 'spam' }, new Date(clock).toISOString());
    const banned = await app.request('/api/keys', { headers: { ...html, authorization: `Bearer ${key}` } });
    const locked = new URL(banned.headers.get('location') ?? '', 'http://x').searchParams.get('flash');
    expect(await (await app.request(`/api/flash/${locked}`)).json()).toMatchObject({ code: 'ACCOUNT_LOCKED' });
  });

  test('API clients keep their problem answers', async () => {
    const variants: Record<string, string>[] = [
      {},
      { accept: 'application/json' },
      { accept: 'text/html, application/json' },
    ];
    for (const headers of variants) {
      const res = await app.request('/api/keys', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
    expect((await app.request('/api/keys', { method: 'POST', headers: html })).status).toBe(401);
  });
});
