/**
 * A fixed-window request counter per key (an IP, later an identity). In memory, behind
 * this small interface so a shared store can back it when one process is not enough.
 */
export interface RateLimiter {
  /** Counts one request; returns the seconds to wait when the limit is exceeded, else 0. */
  hit(key: string): number;
}

export function fixedWindowLimiter(limit: number, windowMs: number, now: () => number): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(key) {
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
      return w.count > limit ? Math.max(1, Math.ceil((w.start + windowMs - t) / 1000)) : 0;
    },
  };
}
