import { QueryRefusedError } from './query-result.js';

/** Queries of `POST /api/admin/neon/query` that one server runs at once (SQLite processes, PostgreSQL backends). */
export const MAX_RUNNING_QUERIES = 2;

/**
 * Caps the queries running at once: one past the cap is refused (503, try again) rather than
 * queued, so that a burst of queries costs the machine at most the cap's processes or backends.
 */
export class QueryGate {
  private running = 0;

  constructor(private readonly max = MAX_RUNNING_QUERIES) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.max)
      throw new QueryRefusedError(`${this.max} queries are running already; try again when one has ended`, 503);
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
    }
  }
}
