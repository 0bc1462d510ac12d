import type { Pool } from 'pg';
import { BoundedRows, type QueryAnswer, QueryRefusedError, VALUES_PER_BUDGET } from './query-result.js';

/**
 * Types whose values are short by nature and keep their JSON type; every other value (numeric,
 * which holds up to 147,000 digits, included) comes as text, cut by the database.
 */
const SHORT_TYPES = new Set([16, 20, 21, 23, 26, 700, 701]);

/** How long a cancelled query has to end before its backend is terminated. */
const TERMINATE_AFTER_MS = 2_000;

/** Signals the backend `pid` from outside its connection (postgres-query-role.ts: the store's connection). */
export type StopBackend = (pid: number, how: 'cancel' | 'terminate') => Promise<void>;

interface Limits {
  timeoutMs: number;
  maxRows: number;
  maxBytes: number;
}

/**
 * Runs `sql` on the query role's pool (postgres-query-role.ts) in a read-only transaction,
 * rolled back whatever happens (so a setting it changes does not outlive it). Its time is kept
 * from outside, where the query cannot undo it: `SET LOCAL statement_timeout` is a first line
 * (a query may raise it with `set_config`), the deadline is a timer that cancels the backend
 * through `stop` and terminates it if it has not ended `TERMINATE_AFTER_MS` later. The
 * extended protocol refuses several statements in one text. The statement is first described
 * (`limit 0`) for its columns; then its rows are read through a cursor, `VALUES_PER_BUDGET` rows
 * at a time, each value of a long type cut by the database to its share of the byte cap, until
 * the row or byte cap is reached.
 */
export async function postgresReadOnlyQuery(
  pool: Pool,
  sql: string,
  limits: Limits,
  stop: StopBackend,
): Promise<QueryAnswer> {
  const client = await pool.connect();
  const pid = (client as unknown as { processID: number }).processID;
  // A connection that breaks (a statement that ends its own backend) or stops answering (a
  // backstop behind the statement timeout) is dropped from the pool, not reused.
  let broken: Error | null = null;
  const onError = (err: Error) => {
    broken ??= err;
  };
  client.on('error', onError);
  let expired = false;
  const deadline = setTimeout(() => {
    expired = true;
    void stop(pid, 'cancel').catch(() => undefined);
  }, limits.timeoutMs);
  let released = false;
  const backstop = setTimeout(() => {
    broken ??= new Error('query time exceeded');
    void stop(pid, 'terminate').catch(() => undefined);
  }, limits.timeoutMs + TERMINATE_AFTER_MS);
  // Last resort, when the backend cannot be signalled: the connection is closed from this side.
  const abandon = setTimeout(
    () => {
      released = true;
      client.release(broken ?? new Error('query time exceeded'));
    },
    limits.timeoutMs + 2 * TERMINATE_AFTER_MS,
  );
  const late = () => new QueryRefusedError(`The query took longer than ${limits.timeoutMs} ms and was ended`, 408);
  // `queryMode` (pg's, not in its types yet): the extended protocol even without parameters.
  const extended = { values: [], rowMode: 'array', queryMode: 'extended' } as const;
  const run = (text: string) => client.query<unknown[]>({ ...extended, text });
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(limits.timeoutMs))}`);
    const text = sql.trim().replace(/(;\s*)+$/, '');
    const described = await run(`select * from (\n${text}\n) as flc_query limit 0`);
    const fields = described.fields;
    const rows = new BoundedRows(fields.length, limits.maxRows, limits.maxBytes);
    const names = fields.map((_, i) => `c${i}`);
    const select = fields.map((f, i) =>
      SHORT_TYPES.has(f.dataTypeID) ? names[i] : `left(${names[i]}::text, ${rows.valueChars + 1})`,
    );
    await run(
      `declare flc_cursor no scroll cursor for select ${select.join(', ') || '1'} from (\n${text}\n) as flc_query` +
        `${fields.length ? `(${names.join(', ')})` : ''} limit ${limits.maxRows + 1}`,
    );
    for (;;) {
      // A cancel that came between two statements ends the query here.
      if (expired) throw late();
      const batch = await run(`fetch forward ${VALUES_PER_BUDGET} from flc_cursor`);
      if (batch.rows.length === 0) break;
      if (!batch.rows.every((r) => rows.add(fields.length ? r : []))) break;
    }
    return {
      columns: fields.map((f) => f.name),
      rows: rows.rows,
      rowCount: rows.rows.length,
      truncated: rows.truncated,
    };
  } catch (err) {
    const e = err as { code?: string; message: string };
    if (err instanceof QueryRefusedError) throw err;
    if (e.code === '57P01' || e.code === undefined) broken ??= err as Error;
    if (expired || e.code === '57014') throw late();
    if (e.code === '57P01') {
      throw new QueryRefusedError('The query ended its own connection');
    }
    // Syntax errors, unknown tables, refused privileges, a write refused by the read-only
    // transaction: the query's fault.
    if (e.code && !/^(08|53|57P|58)/.test(e.code)) throw new QueryRefusedError(e.message);
    throw err;
  } finally {
    clearTimeout(deadline);
    clearTimeout(backstop);
    clearTimeout(abandon);
    client.off('error', onError);
    if (!broken && !released) await client.query('ROLLBACK').catch((err: Error) => (broken = err));
    if (!released) client.release(broken ?? undefined);
  }
}
