import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { type QueryAnswer, QueryRefusedError } from './query-result.js';

/**
 * The child's program: a connection of its own, opened read-only (`mode=ro`) with `query_only`,
 * one prepared statement that must return rows, at most `maxRows` of them. It runs in its own
 * process because SQLite cannot be interrupted from JavaScript: a query past its time is ended
 * with the process, and the server's event loop never waits for it.
 */
const CHILD = `
const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const Database = require(input.libsql);
const out = (v) => process.stdout.write(JSON.stringify(v));
try {
  const db = new Database(input.uri);
  db.exec('PRAGMA query_only = 1');
  const stmt = db.prepare(input.sql);
  if (!stmt.reader) { out({ refused: 'The statement returns no rows: only queries can run' }); process.exit(0); }
  const columns = stmt.columns().map((c) => c.name);
  stmt.raw(true);
  const rows = [];
  let truncated = false;
  for (const row of stmt.iterate()) {
    if (rows.length === input.maxRows) { truncated = true; break; }
    const json = (v) => typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? '[' + v.length + ' bytes]' : v;
    rows.push(row.map(json));
  }
  out({ columns, rows, rowCount: rows.length, truncated });
} catch (e) {
  out({ refused: String(e && e.message || e) });
}
`;

const LIBSQL = createRequire(import.meta.url).resolve('libsql');

/** Runs `sql` on a read-only connection to the SQLite file `file`, ended after `timeoutMs`. */
export function sqliteReadOnlyQuery(
  file: string,
  sql: string,
  timeoutMs: number,
  maxRows: number,
): Promise<QueryAnswer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'pipe', 'ignore'], env: {} });
    let out = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', () => {
      clearTimeout(timer);
      if (timedOut)
        return reject(new QueryRefusedError(`The query took longer than ${timeoutMs} ms and was ended`, 408));
      try {
        const answer = JSON.parse(out) as QueryAnswer & { refused?: string };
        if (answer.refused) return reject(new QueryRefusedError(answer.refused));
        resolve(answer);
      } catch {
        reject(new Error('the query process ended without an answer'));
      }
    });
    const uri = `${pathToFileURL(file).href}?mode=ro`;
    child.stdin.end(JSON.stringify({ libsql: LIBSQL, uri, sql, maxRows }));
  });
}
