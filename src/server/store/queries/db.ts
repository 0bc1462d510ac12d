import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.js';

/** What a query runs on: the database, or one transaction of it. */
export type Db = Kysely<Database> | Transaction<Database>;
