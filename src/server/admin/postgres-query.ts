import type { Pool } from 'pg';
import { jsonValue, type QueryAnswer, QueryRefusedError } from './query-result.js';

/**
 * Runs `sql` in a read-only transaction with a statement timeout, rolled back whatever happens.
 * The extended protocol (`queryMode: 'extended'`) refuses several statements in one text, so a
 * `COMMIT; …` cannot step out of the transaction.
 */
export async function postgresReadOnlyQuery(
  pool: Pool,
  sql: string,
  timeoutMs: number,
  maxRows: number,
): Promise<QueryAnswer> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
    let result: { fields: { name: string }[]; rows: unknown[][] };
    try {
      result = await client.query({
        text: bounded(sql, maxRows),
        values: [],
        rowMode: 'array',
        queryMode: 'extended',
      } as never);
    } catch (err) {
      const e = err as { code?: string; message: string };
      if (e.code === '57014')
        throw new QueryRefusedError(`The query took longer than ${timeoutMs} ms and was ended`, 408);
      // Syntax errors, unknown tables, a write refused by the read-only transaction: the query's fault.
      if (e.code && !/^(08|53|57P|58)/.test(e.code)) throw new QueryRefusedError(e.message);
      throw err;
    }
    const rows = result.rows.slice(0, maxRows).map((r) => r.map(jsonValue));
    return {
      columns: result.fields.map((f) => f.name),
      rows,
      rowCount: rows.length,
      truncated: result.rows.length > maxRows,
    };
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

/** A query that can be a subquery is asked for one row more than answered, not for all of them. */
function bounded(sql: string, maxRows: number): string {
  const text = sql.trim().replace(/;\s*$/, '');
  if (!/^\s*(select|with|values|table)\b/i.test(text)) return text;
  return `select * from (\n${text}\n) as flc_query limit ${maxRows + 1}`;
}
