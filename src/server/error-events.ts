import { randomBytes } from 'node:crypto';
import type { Store } from './store/store.js';
import type { ErrorEvent } from './store/service-records.js';
import type { RateLimiter } from './rate-limit.js';
import { LOG_BOUNDS } from './store/log-bounds.js';

/** What `POST /api/log/frontend-error` writes as `source`, whatever the client said. */
export const FRONTEND_SOURCE = 'frontend';

/**
 * Writes browser error reports after their response has gone: each insert is started on the next
 * turn of the event loop, and a failed one is logged, never retried or answered.
 */
export class ErrorEventWriter {
  private readonly pending = new Set<Promise<void>>();
  private readonly limiter: RateLimiter;

  constructor(
    private readonly store: Store,
    private readonly log: (message: string) => void,
  ) {
    this.limiter = store.rateLimiter('frontend-errors');
  }

  /** A new event's id: 16 random bytes in hex (the specification's). */
  static newId(): string {
    return randomBytes(16).toString('hex');
  }

  /**
   * Stores `event` after the answer, while its source (`sourceKey`, the client's rate-limit key)
   * has stored fewer than `LOG_BOUNDS.errorEventsPerAddress` reports this minute, so that one
   * source's flood cannot fill the log with its own reports. A report over it is dropped (the
   * answer, already sent, is the same).
   */
  schedule(sourceKey: string, event: ErrorEvent): void {
    const write = new Promise<void>((resolve) => setImmediate(resolve))
      .then(async () => {
        const hit = await this.limiter.hit(`frontend-error:${sourceKey}`, LOG_BOUNDS.errorEventsPerAddress);
        if (!hit.limited) await this.store.addErrorEvent(event);
      })
      .catch((err: Error) => this.log(`frontend-error: cannot store event ${event.id}: ${err.message}`))
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Waits for the inserts scheduled so far (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
