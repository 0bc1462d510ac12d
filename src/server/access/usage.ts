import type { UsageEntry } from '../store/accounts.js';
import type { Store } from '../store/store.js';

/**
 * Counts requests per user, UTC day and route in memory and writes them to the store in one
 * transaction at most once a second (and on `flush`, before every read and at shutdown), so a
 * busy route costs a map update, not a database write. A crash loses at most the last second.
 */
export class UsageRecorder {
  private pending = new Map<string, UsageEntry>();
  private lastFlush: number;
  /** Writes run one after another, so a flush that returns has written everything before it. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly now: () => number,
    private readonly flushEveryMs = 1_000,
    private readonly log: (message: string) => void = () => undefined,
  ) {
    this.lastFlush = now();
  }

  record(userId: string, route: string): void {
    const t = this.now();
    const at = new Date(t).toISOString();
    const day = at.slice(0, 10);
    const id = `${userId}\n${day}\n${route}`;
    const entry = this.pending.get(id);
    if (entry) {
      entry.count += 1;
      entry.lastSeen = at;
    } else {
      this.pending.set(id, { userId, day, route, count: 1, firstSeen: at, lastSeen: at });
    }
    if (t - this.lastFlush >= this.flushEveryMs || this.pending.size >= 1_000) void this.flush();
  }

  /** Writes what is pending (never rejects). A failed write keeps the counts for the next attempt. */
  flush(): Promise<void> {
    this.lastFlush = this.now();
    if (this.pending.size === 0) return this.writing;
    const entries = [...this.pending.values()];
    this.pending = new Map();
    this.writing = this.writing.then(() => this.write(entries));
    return this.writing;
  }

  private async write(entries: UsageEntry[]): Promise<void> {
    try {
      await this.store.addUsage(entries);
    } catch (err) {
      this.log(`usage: could not write ${entries.length} counts: ${(err as Error).message}`);
      for (const e of entries) {
        const id = `${e.userId}\n${e.day}\n${e.route}`;
        const newer = this.pending.get(id);
        if (newer) {
          newer.count += e.count;
          newer.firstSeen = e.firstSeen;
        } else if (this.pending.size < 100_000) {
          this.pending.set(id, e);
        }
      }
    }
  }
}
