import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** The outcome of counting one request. */
export interface RateHit {
  /** True when this request is over the limit. */
  limited: boolean;
  /** Requests left in the current window (0 when limited). */
  remaining: number;
  /** Seconds until the window resets (at least 1); what `Retry-After` says when limited. */
  resetSeconds: number;
}

/**
 * A per-minute request counter per key (an address, a user, an email). The limit is given with
 * each hit, so a limit changed in the tier table applies at once.
 */
export interface RateLimiter {
  hit(key: string, limit: number): Promise<RateHit>;
}

const WINDOW_SECONDS = 60;
/**
 * rate-limiter-flexible refuses past a fixed number of points; the limit here comes with each
 * hit instead, so the library only counts (up to this) and the comparison is made below.
 */
const COUNT_ONLY = 1_000_000_000;

/** The outcome of a key's `count`th request in a window that ends in `msLeft`. */
const hitOf = (count: number, limit: number, msLeft: number): RateHit => ({
  limited: count > limit,
  remaining: Math.max(0, limit - count),
  resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
});

/** Keys remembered as over their limit (PostgreSQL), the least recently refused forgotten first. */
export const REFUSED_KEYS_KEPT = 10_000;

/**
 * Counts with a rate-limiter-flexible limiter (a fixed window per key, from its first hit). With
 * `refusals`, a key over its limit is remembered until its window ends, and refused again without
 * the store while the limit is no higher than the one it passed: over PostgreSQL a refused request
 * then costs no round trip and no commit (a flood of them once cost one each).
 */
function counting(limiter: RateLimiterAbstract, refusals?: LRUCache<string, { limit: number; until: number }>) {
  return {
    async hit(key: string, limit: number): Promise<RateHit> {
      const over = refusals?.get(key);
      const now = Date.now();
      if (over && over.until > now && limit <= over.limit)
        return { limited: true, remaining: 0, resetSeconds: Math.max(1, Math.ceil((over.until - now) / 1000)) };
      // PostgreSQL keeps keys of at most 255 characters; an email and an address can make more.
      const res = await limiter.consume(
        key.length > 120 ? createHash('sha256').update(key).digest('base64url') : key,
        1,
      );
      if (refusals && res.consumedPoints > limit) refusals.set(key, { limit, until: now + res.msBeforeNext });
      return hitOf(res.consumedPoints, limit, res.msBeforeNext);
    },
  };
}

/** Counts in this process's memory (the SQLite store: one process). */
export function memoryRateLimiter(name: string): RateLimiter {
  return counting(new RateLimiterMemory({ keyPrefix: name, points: COUNT_ONLY, duration: WINDOW_SECONDS }));
}

/**
 * Counts in PostgreSQL's `rate_limits` table (migration 006), so every process on the database
 * counts together. Should the database fail, counting goes on in memory until it answers again.
 */
export function postgresRateLimiter(pool: Pool, name: string): RateLimiter {
  const insurance = new RateLimiterMemory({ keyPrefix: name, points: COUNT_ONLY, duration: WINDOW_SECONDS });
  return counting(
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true,
      // The library's pruning: every 5 minutes, rows whose window ended over an hour ago.
      clearExpiredByTimeout: true,
      keyPrefix: name,
      points: COUNT_ONLY,
      duration: WINDOW_SECONDS,
      insuranceLimiter: insurance,
    }),
    new LRUCache({ max: REFUSED_KEYS_KEPT }),
  );
}

/**
 * A fixed-window counter in this process's memory, with an injected clock (the streaming routes'
 * per-address limit, which stays per process).
 */
export function fixedWindowLimiter(windowMs: number, now: () => number) {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(key: string, limit: number): RateHit {
      const t = now();
      let w = windows.get(key);
      if (!w || t - w.start >= windowMs) {
        w = { start: t, count: 0 };
        windows.set(key, w);
        if (windows.size > 10_000) {
          for (const [k, v] of windows) if (t - v.start >= windowMs) windows.delete(k);
        }
      }
      w.count += 1;
      return hitOf(w.count, limit, w.start + windowMs - t);
    },
  };
}
