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
 * A fixed-window request counter per key (an address, a user). The limit is given with each
 * hit, so a changed limit applies at once. In memory, behind this small interface so a shared
 * store can back it when one process is not enough.
 */
export interface RateLimiter {
  hit(key: string, limit: number): RateHit;
}

export function fixedWindowLimiter(windowMs: number, now: () => number): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(key, limit) {
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
      return {
        limited: w.count > limit,
        remaining: Math.max(0, limit - w.count),
        resetSeconds: Math.max(1, Math.ceil((w.start + windowMs - t) / 1000)),
      };
    },
  };
}
