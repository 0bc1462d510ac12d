import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type QueryAnswer, QueryRefusedError } from './query-result.js';
import type { SqliteQueryInput } from './sqlite-query-child.js';

const FROM_SOURCE = import.meta.url.endsWith('.ts');
const CHILD = fileURLToPath(
  new URL(FROM_SOURCE ? './sqlite-query-child.ts' : './sqlite-query-child.js', import.meta.url),
);

/** The child's V8 heap: rows are gathered up to the byte cap, far below it. */
const CHILD_HEAP_MB = 128;

/**
 * Runs `sql` in a process of its own (sqlite-query-child.ts) on the SQLite file `file`, killed
 * after `timeoutMs`: SQLite cannot be interrupted from JavaScript, and the server's event loop must
 * never wait for a query. The process has an empty environment and a capped heap.
 */
export function sqliteReadOnlyQuery(
  file: string,
  sql: string,
  limits: { timeoutMs: number; maxRows: number; maxBytes: number },
): Promise<QueryAnswer> {
  return new Promise((resolve, reject) => {
    const args = [`--max-old-space-size=${CHILD_HEAP_MB}`, ...(FROM_SOURCE ? ['--import', 'tsx'] : []), CHILD];
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env: {} });
    const chunks: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, limits.timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      size += d.length;
      // The answer is at most the byte cap and its JSON framing; anything more is not read.
      if (size > limits.maxBytes * 2 + 65_536) child.kill('SIGKILL');
      else chunks.push(d);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', () => {
      clearTimeout(timer);
      if (timedOut)
        return reject(new QueryRefusedError(`The query took longer than ${limits.timeoutMs} ms and was ended`, 408));
      try {
        const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as QueryAnswer & { refused?: string };
        if (answer.refused) return reject(new QueryRefusedError(answer.refused));
        resolve(answer);
      } catch {
        reject(new QueryRefusedError('The query ended without an answer (out of memory?)'));
      }
    });
    const input: SqliteQueryInput = { file, sql, maxRows: limits.maxRows, maxBytes: limits.maxBytes };
    child.stdin.end(JSON.stringify(input));
  });
}
