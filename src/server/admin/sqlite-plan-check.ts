import { isSecretColumn } from '../store/secret-columns.js';

/**
 * The authoritative check of a SQLite query for `POST /api/admin/neon/query`: the statement as
 * SQLite compiled it (`EXPLAIN`), whatever its text looked like. Quoting, comments, aliases and
 * views make no difference here: every function call is a `Function`/`Agg*` instruction naming the
 * function, every read of a stored table is an `OpenRead` of its root page and a `Column` of its
 * column, and anything else (virtual tables such as `fsdir`, writes, schema changes, pragmas)
 * is an instruction that is not on the list below.
 */

/** A table or index of the store's file, by root page. */
export interface PlanObject {
  table: string;
  kind: 'table' | 'index';
  /** Column names in record order (an index: its key columns, then the row id as `rowid`). */
  columns: readonly string[];
}

/** Instructions that read, compute or control flow. */
const READS = new Set(
  `Init Goto Gosub Return InitCoroutine EndCoroutine Yield HaltIfNull Halt Once If IfNot IfNullRow
  IsNull NotNull IsType ZeroOrNull Jump Noop Explain Trace Abortable ReleaseReg BeginSubrtn Filter
  FilterAdd CursorHint ColumnsUsed Permutation Compare ElseEq SeekHit Integer Int64 Real String8
  String Null SoftNull Blob Variable Move Copy SCopy IntCopy ClrSubtype GetSubtype SetSubtype Add
  Subtract Multiply Divide Remainder Concat BitAnd BitOr ShiftLeft ShiftRight AddImm MustBeInt
  RealAffinity Cast Affinity TypeCheck Eq Ne Lt Le Gt Ge And Or IsTrue Not BitNot CollSeq Function
  PureFunc AggStep AggStep1 AggInverse AggValue AggFinal OpenRead ReopenIdx OpenEphemeral
  OpenAutoindex OpenDup OpenPseudo SorterOpen Close SeekLT SeekLE SeekGE SeekGT SeekScan SeekRowid
  NotExists Found NotFound NoConflict IfNoHope Sequence SequenceTest Rewind Last Next Prev
  SorterSort Sort SorterNext SorterData SorterCompare NullRow Column Rowid RowData IdxRowid
  DeferredSeek FinishSeek IdxLE IdxGT IdxLT IdxGE Count IfSizeBetween IfSmaller MakeRecord ResultRow
  DecrJumpZero IfPos IfNotZero OffsetLimit MemMax RowSetAdd RowSetRead RowSetTest Transaction`.split(/\s+/),
);

/** Instructions that write, allowed only on the statement's own scratch cursors (sorters, CTEs). */
const SCRATCH_WRITES = new Set([
  'Insert',
  'IdxInsert',
  'Delete',
  'IdxDelete',
  'NewRowid',
  'ResetSorter',
  'SorterInsert',
]);
const SCRATCH_OPENS = new Set(['OpenEphemeral', 'OpenAutoindex', 'OpenPseudo', 'SorterOpen']);
const CALLS = new Set(['Function', 'PureFunc', 'AggStep', 'AggStep1', 'AggInverse', 'AggValue', 'AggFinal']);

/** The root page of `sqlite_schema` (of the main and of the temporary database). */
const SCHEMA_PAGE = 1;

type Cursor = { scratch: true } | { scratch: false; object: PlanObject | null };

/**
 * Why the compiled statement `plan` (rows of `EXPLAIN`: addr, opcode, p1, p2, p3, p4, …) may not
 * run, or null when it only reads non-secret columns and calls allowed functions.
 */
export function refusePlan(
  plan: readonly (readonly unknown[])[],
  objects: ReadonlyMap<number, PlanObject>,
  functions: ReadonlySet<string>,
): string | null {
  const cursors = new Map<number, Cursor>();
  for (const row of plan) {
    const [op, p1, p2, p3, p4] = [String(row[1]), Number(row[2]), Number(row[3]), Number(row[4]), row[5]];
    if (!READS.has(op) && !SCRATCH_WRITES.has(op)) return `The statement needs SQLite's ${op}: only reads can run`;
    if (op === 'Transaction' && p2 !== 0) return 'The statement writes: only reads can run';
    if (SCRATCH_OPENS.has(op)) cursors.set(p1, { scratch: true });
    else if (op === 'OpenDup') cursors.set(p1, cursors.get(p2) ?? { scratch: false, object: null });
    else if (op === 'OpenRead' || op === 'ReopenIdx') {
      if (p2 === SCHEMA_PAGE) {
        cursors.set(p1, { scratch: false, object: null });
        continue;
      }
      const object = p3 === 0 ? objects.get(p2) : undefined;
      if (!object) return 'The statement reads a table that is not part of the store';
      const secret = object.columns.find((c) => isSecretColumn(object.table, c));
      if (object.kind === 'index' && secret)
        return `${object.table}.${secret} is secret: the query route does not read it`;
      cursors.set(p1, { scratch: false, object });
    } else if (op === 'Column') {
      const cursor = cursors.get(p1);
      if (!cursor) return 'The statement reads a cursor it did not open';
      if (!cursor.scratch && cursor.object) {
        const column = cursor.object.columns[p2];
        if (column === undefined || isSecretColumn(cursor.object.table, column))
          return `${cursor.object.table}.${column ?? `column ${p2}`} is secret: the query route does not read it`;
      }
    } else if (SCRATCH_WRITES.has(op) && !cursors.get(p1)?.scratch) return 'The statement writes: only reads can run';
    else if (CALLS.has(op)) {
      const name = /^(.*)\(-?\d+\)$/.exec(String(p4 ?? ''))?.[1]?.toLowerCase() ?? String(p4);
      if (!functions.has(name)) return `The function ${name} is not allowed in a query`;
    }
  }
  return null;
}
