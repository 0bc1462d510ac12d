import { HTTPException } from 'hono/http-exception';

/** What a read-only query answers. */
export interface QueryAnswer {
  columns: string[];
  /** Each row as an array, in `columns` order. */
  rows: unknown[][];
  rowCount: number;
  /** More rows were there than the answer holds, or a value was cut. */
  truncated: boolean;
}

/** A database value as JSON can carry it: large integers as strings, blobs by their size. */
export function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Uint8Array) return `[${v.length} bytes]`;
  if (v instanceof Date) return v.toISOString();
  return v;
}

/** Refused or failed by the database: the caller's query, so a 4xx, answered as a refusal is. */
export class QueryRefusedError extends HTTPException {
  constructor(message: string, status: 408 | 422 | 503 = 422) {
    super(status, { message });
    this.name = 'QueryRefusedError';
  }
}

/** A value's share of the byte cap: 1/16 of it, split among the columns (so 16 rows fetched at once fit). */
export const VALUES_PER_BUDGET = 16;

/**
 * Gathers rows up to `maxRows` rows and `maxBytes` bytes of JSON: a value longer than its share
 * (at least 256 characters) is cut, and the rows stop at the budget.
 */
export class BoundedRows {
  readonly rows: unknown[][] = [];
  truncated = false;
  private bytes = 0;
  private readonly perValue: number;

  constructor(
    readonly columns: number,
    private readonly maxRows: number,
    private readonly maxBytes: number,
  ) {
    this.perValue = Math.max(256, Math.floor(maxBytes / (VALUES_PER_BUDGET * Math.max(1, columns))));
  }

  /** The longest text a value may keep (what a database may be asked to cut values to). */
  get valueChars(): number {
    return this.perValue;
  }

  /** Adds a row; false when the answer is full (the row is then not added). */
  add(row: readonly unknown[]): boolean {
    if (this.rows.length >= this.maxRows) return this.full();
    const values = row.map((raw) => {
      const v = jsonValue(raw);
      if (typeof v !== 'string' || v.length <= this.perValue) return v;
      this.truncated = true;
      return `${v.slice(0, this.perValue)}…`;
    });
    const size = Buffer.byteLength(JSON.stringify(values)) + 1;
    if (this.bytes + size > this.maxBytes && this.rows.length > 0) return this.full();
    this.bytes += size;
    this.rows.push(values);
    return true;
  }

  private full(): false {
    this.truncated = true;
    return false;
  }
}
