import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import Database from 'libsql';
import { isSecretColumn, REDACTED } from '../store/secret-columns.js';
import { BoundedRows } from './query-result.js';
import { QUERY_FUNCTIONS } from './query-functions.js';
import { type PlanObject, refusePlan } from './sqlite-plan-check.js';

/**
 * The query route's SQLite process (sqlite-query.ts starts one per query): a connection of its
 * own to the store file, opened read-only, with SQLite's heap capped. Each table of the store is
 * shadowed by a temporary view of the same name whose secret columns hold `[redacted]`; the
 * statement is compiled, its instructions checked (sqlite-plan-check.ts), and only then run.
 */

export interface SqliteQueryInput {
  file: string;
  sql: string;
  maxRows: number;
  maxBytes: number;
}

/** SQLite's own memory in this process: a value or a sort larger than this fails the query. */
const HEAP_LIMIT = 64 * 1024 * 1024;

type Db = InstanceType<typeof Database>;
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface SchemaRow {
  type: string;
  name: string;
  tbl_name: string;
  rootpage: number;
  sql: string | null;
}

/** The store's tables and indexes by root page, each with its columns in record order. */
function storeObjects(db: Db): Map<number, PlanObject> {
  const rows = db
    .prepare("select type, name, tbl_name, rootpage, sql from main.sqlite_schema where type in ('table', 'index')")
    .all() as SchemaRow[];
  const columnsOf = (pragma: string) =>
    (db.prepare(pragma).all() as { name: string | null; seqno?: number }[]).map((c) => c.name ?? 'rowid');
  const objects = new Map<number, PlanObject>();
  for (const r of rows) {
    if (!r.rootpage) continue;
    if (r.type === 'index') {
      objects.set(r.rootpage, {
        table: r.tbl_name,
        kind: 'index',
        columns: columnsOf(`pragma main.index_xinfo(${quote(r.name)})`),
      });
      continue;
    }
    // A WITHOUT ROWID table is stored as its primary key's index: its record order is that index's.
    const withoutRowid = /without\s+rowid/i.test(r.sql ?? '');
    const pk = withoutRowid
      ? (db.prepare(`pragma main.index_list(${quote(r.name)})`).all() as { name: string; origin: string }[]).find(
          (i) => i.origin === 'pk',
        )
      : undefined;
    const columns = pk
      ? columnsOf(`pragma main.index_xinfo(${quote(pk.name)})`)
      : columnsOf(`pragma main.table_info(${quote(r.name)})`);
    objects.set(r.rootpage, { table: r.name, kind: withoutRowid ? 'index' : 'table', columns });
  }
  return objects;
}

/** A temporary view over each table, `[redacted]` in place of its secret columns. */
function shadowTables(db: Db, objects: Map<number, PlanObject>): void {
  const tables = db
    .prepare("select name from main.sqlite_schema where type = 'table' and name not like 'sqlite\\_%' escape '\\'")
    .pluck()
    .all() as string[];
  for (const name of tables) {
    const columns = (db.prepare(`pragma main.table_info(${quote(name)})`).all() as { name: string }[]).map((c) =>
      isSecretColumn(name, c.name) ? `'${REDACTED}' as ${quote(c.name)}` : quote(c.name),
    );
    // An index holding a secret column is never used through the view: the check refuses to open one.
    const secretIndex = [...objects.values()].some(
      (o) => o.kind === 'index' && o.table === name && o.columns.some((c) => isSecretColumn(name, c)),
    );
    const from = `main.${quote(name)}${secretIndex ? ' not indexed' : ''}`;
    db.exec(`create temp view ${quote(name)} as select ${columns.join(', ')} from ${from}`);
  }
}

function run(input: SqliteQueryInput): unknown {
  const db = new Database(`${pathToFileURL(input.file).href}?mode=ro`);
  db.exec(`pragma hard_heap_limit = ${HEAP_LIMIT}`);
  const objects = storeObjects(db);
  shadowTables(db, objects);
  db.exec('pragma query_only = 1');
  const plan = db.prepare(`explain ${input.sql}`).raw(true).all() as unknown[][];
  const refused = refusePlan(plan, objects, QUERY_FUNCTIONS.sqlite);
  if (refused) return { refused };
  const stmt = db.prepare(input.sql);
  if (!stmt.reader) return { refused: 'The statement returns no rows: only queries can run' };
  const columns = stmt.columns().map((c: { name: string }) => c.name);
  const rows = new BoundedRows(columns.length, input.maxRows, input.maxBytes);
  stmt.raw(true);
  for (const row of stmt.iterate() as Iterable<unknown[]>) if (!rows.add(row)) break;
  return { columns, rows: rows.rows, rowCount: rows.rows.length, truncated: rows.truncated };
}

let answer: unknown;
try {
  answer = run(JSON.parse(readFileSync(0, 'utf8')) as SqliteQueryInput);
} catch (e) {
  answer = { refused: String((e as Error)?.message ?? e) };
}
process.stdout.write(JSON.stringify(answer));
