import type { Kysely, SelectQueryBuilder, Transaction } from 'kysely';
import type { Database } from '../schema.js';

/** What a query runs on: the database, or one transaction of it. */
export type Db = Kysely<Database> | Transaction<Database>;

/** How many rows `q` (a table and its filters) selects: the `total` of a paged list. */
export async function countOf<T extends keyof Database>(q: SelectQueryBuilder<Database, T, object>): Promise<number> {
  return Number((await q.select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}
