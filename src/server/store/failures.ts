import { ConflictError, StoreUnavailableError } from '../../core/errors/index.js';

/** How long a busy database is retried before the request fails with 503 (and what `Retry-After` says). */
export const DEFAULT_BUSY_POLICY = { budgetMs: 5_000, retryAfterSeconds: 5 };
export type BusyPolicy = typeof DEFAULT_BUSY_POLICY;

type DbError = Error & { code?: unknown; rawCode?: unknown };

/** SQLite's busy/locked, PostgreSQL's serialization failure and deadlock: worth another try soon. */
const isBusy = (code: string) => /^SQLITE_(BUSY|LOCKED)/.test(code) || code === '40001' || code === '40P01';

function isUniqueViolation(err: DbError, code: string): boolean {
  // 2067 and 1555: SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY, when only the primary code is named.
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    (code === 'SQLITE_CONSTRAINT' && (err.rawCode === 2067 || err.rawCode === 1555))
  );
}

/** A server that cannot be reached or went away, a lock that waited too long (PostgreSQL). */
function isUnreachable(err: DbError, code: string): boolean {
  return (
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EPIPE)$/.test(code) ||
    /^(08|57P0)/.test(code) ||
    code === '55P03' ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(err.message)
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` (a statement or a whole transaction, which rolled back when it failed) and tries
 * again with growing pauses while the database is busy, without ever blocking the event loop.
 * Past the budget, and for a database that cannot be reached, it fails with StoreUnavailableError;
 * a unique-constraint violation becomes ConflictError (`conflict` names what was taken); `onBusy`
 * hears of each busy answer.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: BusyPolicy,
  conflict = 'That already exists',
  onBusy?: () => void,
): Promise<T> {
  const started = Date.now();
  let pause = 5;
  for (;;) {
    try {
      return await attempt();
    } catch (e) {
      const err = e as DbError;
      const code = String(err.code ?? '');
      if (isUniqueViolation(err, code)) throw new ConflictError(conflict, { cause: err });
      if (isUnreachable(err, code))
        throw new StoreUnavailableError('The store cannot be reached', policy.retryAfterSeconds, { cause: err });
      if (!isBusy(code)) throw err;
      onBusy?.();
      if (Date.now() - started + pause > policy.budgetMs)
        throw new StoreUnavailableError('The store is busy; try again shortly', policy.retryAfterSeconds, {
          cause: err,
        });
      await sleep(pause);
      pause = Math.min(pause * 2, 200);
    }
  }
}
