import type { ErrorEvent } from '../service-records.js';
import { camel, snake } from '../rows.js';
import { countOf, type Db } from './db.js';

/** Browser error reports (`error_events`). */

export async function addErrorEvent(db: Db, e: ErrorEvent): Promise<void> {
  await db.insertInto('error_events').values(snake(e)).execute();
}

/** Deletes error reports made before `before`, and all but the newest `keep`. */
export async function pruneErrorEvents(db: Db, before: string, keep: number): Promise<void> {
  await db.deleteFrom('error_events').where('created_at', '<', before).execute();
  const last = await db
    .selectFrom('error_events')
    .select('created_at')
    .orderBy('created_at', 'desc')
    .offset(keep)
    .limit(1)
    .executeTakeFirst();
  if (last) await db.deleteFrom('error_events').where('created_at', '<=', last.created_at).execute();
}

export async function errorEvents(db: Db, limit: number, offset: number) {
  const q = db.selectFrom('error_events');
  const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute();
  return { events: rows.map(camel), total: await countOf(q) };
}
