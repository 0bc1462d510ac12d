import { afterAll, describe, expect, test, vi } from 'vitest';
import pg from 'pg';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { issueApiKey } from '../../src/server/auth/identity.js';
import { memoryRateLimiter } from '../../src/server/rate-limit.js';
import { freshPostgresUrl, POSTGRES_SKIP_REASON, POSTGRES_URL } from '../support/postgres.js';

// Date is faked: the rate limiter (rate-limiter-flexible) and the app read the same clock, and
// the windows move only when the test moves it.
let clock = Date.parse('2026-09-01T00:00:00Z');
vi.useFakeTimers({ toFake: ['Date'] });
function tick(ms: number) {
  clock += ms;
  vi.setSystemTime(clock);
}
tick(0);
const store = await openStore(':memory:');
const app = createApp({
  store,
  version: '1',
  now: () => Date.now(),
  startedAt: clock,
  makeReader: () => {
    throw new Error('unused');
  },
});
afterAll(() => store.close());
const password = { hash: 'h', salt: 's', iterations: 1 };
const user = (email: string, tier: string) =>
  store.createUser({ email, role: tier === 'admin' ? 'admin' : 'user', tier, password });
const get = (path: string, token?: string) =>
  app.request(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });

/** Sends `n` requests; returns the statuses and the last response. */
async function burst(n: number, path: string, token?: string) {
  const statuses: number[] = [];
  let last: Response | undefined;
  for (let i = 0; i < n; i += 1) {
    last = await get(path, token);
    statuses.push(last.status);
  }
  return { statuses, last: last! };
}

describe('per-tier rate limits', () => {
  test.each([
    ['anonymous', 10],
    ['free', 60],
    ['pro', 300],
  ])('%s: %i requests a minute, then 429 with Retry-After until the window ends', async (tier, limit) => {
    tick(120_000);
    const token =
      tier === 'anonymous'
        ? undefined
        : (await startSession(store, await user(`${tier}@example.org`, tier), clock)).token;
    const first = await get('/api/version', token);
    expect(first.headers.get('x-ratelimit-limit')).toBe(String(limit));
    expect(first.headers.get('x-ratelimit-remaining')).toBe(String(limit - 1));
    expect(first.headers.get('x-ratelimit-reset')).toBe('60');
    tick(20_000);
    const { statuses, last } = await burst(limit, '/api/version', token);
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('40');
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await last.json()).detail).toBe(`Rate limit exceeded: ${limit} requests per minute for the ${tier} tier`);
    tick(39_000);
    expect((await get('/api/version', token)).status).toBe(429);
    tick(1_000);
    expect((await get('/api/version', token)).status).toBe(200);
  });

  test('admin: unlimited, and no rate-limit headers', async () => {
    tick(120_000);
    const token = (await startSession(store, await user('admin@example.org', 'admin'), clock)).token;
    const { statuses, last } = await burst(1_000, '/api/version', token);
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(last.headers.get('x-ratelimit-limit')).toBeNull();
  });

  test('limits are per identity: users apart, a user and their keys together', async () => {
    tick(120_000);
    const a = await user('a@example.org', 'free');
    const session = (await startSession(store, a, clock)).token;
    const key = (await issueApiKey(store, a, { name: 'k', scopes: ['compile', 'rules'] }, clock)).text;
    const other = (await startSession(store, await user('b@example.org', 'free'), clock)).token;
    await burst(30, '/api/keys', session);
    await burst(30, '/api/keys', key);
    expect((await get('/api/keys', key)).status).toBe(429);
    expect((await get('/api/keys', session)).status).toBe(429);
    expect((await get('/api/keys', other)).status).toBe(200);
  });

  test('a limit changed in the tier table applies to the next request, without a restart', async () => {
    tick(120_000);
    const token = (await startSession(store, await user('changing@example.org', 'free'), clock)).token;
    expect((await burst(10, '/api/keys', token)).statuses.every((s) => s === 200)).toBe(true);
    await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 10 }, new Date(clock).toISOString());
    const limited = await get('/api/keys', token);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('10');
    await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 0 }, new Date(clock).toISOString());
    expect((await burst(100, '/api/keys', token)).statuses.every((s) => s === 200)).toBe(true);
    await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 60 }, new Date(clock).toISOString());
  });

  test('the health probe is never limited', async () => {
    tick(120_000);
    expect(new Set((await burst(30, '/api/health')).statuses)).toEqual(new Set([200]));
  });
});

describe('rate limiters', () => {
  test('memory: counts per key within the window and starts afresh after it', async () => {
    tick(120_000);
    const limiter = memoryRateLimiter('unit');
    expect(await limiter.hit('a', 2)).toEqual({ limited: false, remaining: 1, resetSeconds: 60 });
    expect((await limiter.hit('a', 2)).limited).toBe(false);
    expect((await limiter.hit('b', 2)).limited).toBe(false);
    tick(59_500);
    expect(await limiter.hit('a', 2)).toEqual({ limited: true, remaining: 0, resetSeconds: 1 });
    tick(500);
    expect((await limiter.hit('a', 2)).limited).toBe(false);
  });

  test.skipIf(!POSTGRES_URL)('postgres: two stores on one database count together', async (ctx) => {
    if (!POSTGRES_URL) ctx.skip(POSTGRES_SKIP_REASON);
    const url = await freshPostgresUrl();
    const [one, two] = [await openStore(url), await openStore(url)];
    try {
      const [a, b] = [one.rateLimiter('requests'), two.rateLimiter('requests')];
      for (let i = 0; i < 5; i += 1) expect((await (i % 2 ? a : b).hit('ip:x', 5)).limited).toBe(false);
      const sixth = await a.hit('ip:x', 5);
      expect(sixth).toMatchObject({ limited: true, remaining: 0 });
      expect((await b.hit('ip:y', 5)).limited).toBe(false);
      // A higher limit given with the next hit applies at once.
      expect((await b.hit('ip:x', 10)).limited).toBe(false);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  test.skipIf(!POSTGRES_URL)(
    'postgres: a key over its limit is refused without the database; old rows pruned',
    async (ctx) => {
      if (!POSTGRES_URL) ctx.skip(POSTGRES_SKIP_REASON);
      const url = await freshPostgresUrl();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const points = async (key: string) =>
        (await client.query('select points from rate_limits where key = $1', [key])).rows[0]?.points;
      // The library's pruning runs on a 5-minute timer, started with the limiter: faked here.
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
      vi.setSystemTime(clock);
      const store = await openStore(url);
      try {
        await client.query('insert into rate_limits (key, points, expire) values ($1, 1, $2)', [
          'refusals:gone',
          clock - 2 * 3_600_000,
        ]);
        const limiter = store.rateLimiter('refusals');
        for (let i = 0; i < 2; i += 1) expect((await limiter.hit('ip:z', 2)).limited).toBe(false);
        for (let i = 0; i < 10; i += 1) expect((await limiter.hit('ip:z', 2)).limited).toBe(true);
        // Only the first refusal reached the database.
        expect(await points('refusals:ip:z')).toBe(3);
        // A higher limit given with the next hit goes to the database again, and applies at once.
        expect((await limiter.hit('ip:z', 10)).limited).toBe(false);
        expect(await points('refusals:ip:z')).toBe(4);
        // The next window counts afresh.
        tick(61_000);
        expect((await limiter.hit('ip:z', 2)).limited).toBe(false);

        expect(await points('refusals:gone')).toBe(1);
        vi.advanceTimersByTime(300_000);
        vi.useFakeTimers({ toFake: ['Date'] });
        for (let tries = 0; (await points('refusals:gone')) !== undefined && tries < 100; tries += 1)
          await new Promise((r) => setTimeout(r, 100));
        expect(await points('refusals:gone')).toBeUndefined();
        expect(await points('refusals:ip:z')).toBe(1);
      } finally {
        vi.useFakeTimers({ toFake: ['Date'] });
        await store.close();
        await client.end();
      }
    },
  );
});
