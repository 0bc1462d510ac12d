/** What a read-only query answers. */
export interface QueryAnswer {
  columns: string[];
  /** Each row as an array, in `columns` order. */
  rows: unknown[][];
  rowCount: number;
  /** More rows were there than the answer holds. */
  truncated: boolean;
}

/** A database value as JSON can carry it: large integers as strings, blobs by their size. */
export function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Uint8Array) return `[${v.length} bytes]`;
  if (v instanceof Date) return v.toISOString();
  return v;
}

/** Refused or failed by the database: the caller's query, so a 4xx. */
export class QueryRefusedError extends Error {
  constructor(
    message: string,
    readonly status: 408 | 422 = 422,
  ) {
    super(message);
    this.name = 'QueryRefusedError';
  }
}
