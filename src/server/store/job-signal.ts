import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from './queries/db.js';

/**
 * The job queue's wake-up on PostgreSQL: a statement that makes a job claimable (written, or put
 * back by a server shutting down) sends `NOTIFY` on the store's channel in its transaction, so
 * every `flc serve` on the database hears of it at commit and looks at the table at once. The
 * table stays the queue: a lost notification only delays a job to the next poll.
 *
 * One channel per schema (stores in other schemas of the same database do not wake each other),
 * named from the schema's digest to stay within PostgreSQL's 63-byte identifiers.
 */
const CHANNEL = `'flc_jobs_' || left(md5(current_schema()), 16)`;

/** Sends the wake-up in the transaction `db` belongs to (delivered when it commits). */
export async function signalJobs(db: Db): Promise<void> {
  await sql`select pg_notify(${sql.raw(CHANNEL)}, '')`.execute(db);
}

/**
 * Listens on the store's channel over a connection of its own, calling `onSignal` for each
 * notification. A connection that fails is opened again a second later (and `onSignal` called
 * then, for what was missed). Resolves once the first attempt is over, with the function that
 * stops listening.
 */
export async function listenForJobs(
  url: string,
  onSignal: () => void,
  log: (message: string) => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    client = c;
    const fail = (e: Error): void => {
      if (stopped || client !== c) return;
      client = null;
      log(`queue: the job wake-up connection failed (${e.message}); the table is polled meanwhile`);
      void c.end().catch(() => undefined);
      retry = setTimeout(() => void connect(), 1_000);
      retry.unref();
    };
    c.on('notification', onSignal);
    c.on('error', fail);
    c.on('end', () => fail(new Error('the connection closed')));
    return c
      .connect()
      .then(() => c.query<{ channel: string }>(`select ${CHANNEL} as channel`))
      .then(({ rows }) => c.query(`listen "${rows[0].channel}"`))
      .then(onSignal, fail);
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const c = client as pg.Client | null;
    client = null;
    await c?.end().catch(() => undefined);
  };
}
