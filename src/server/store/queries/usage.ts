import { sql } from 'kysely';
import type { UsageEntry } from '../accounts.js';
import { camel, snake } from '../rows.js';
import type { Db } from './db.js';

/** Requests per user, UTC day and route. */

/** Adds the counts (in the caller's transaction); users deleted since they were counted are skipped. */
export async function addUsage(db: Db, entries: UsageEntry[]): Promise<void> {
  const ids = [...new Set(entries.map((e) => e.userId))];
  const live = new Set((await db.selectFrom('users').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
  // In key order, so two servers adding counts for the same rows never wait on each other in a cycle.
  const ordered = entries
    .filter((e) => live.has(e.userId))
    .sort((a, b) => (a.userId + a.day + a.route < b.userId + b.day + b.route ? -1 : 1));
  for (const e of ordered) await upsert(db, e);
}

/** Adds one day's count, keeping the earliest first and the latest last sighting. */
function upsert(db: Db, e: UsageEntry) {
  return db
    .insertInto('usage_daily')
    .values(snake(e))
    .onConflict((oc) =>
      oc.columns(['user_id', 'day', 'route']).doUpdateSet({
        count: sql`usage_daily.count + excluded.count`,
        first_seen: sql`case when excluded.first_seen < usage_daily.first_seen
          then excluded.first_seen else usage_daily.first_seen end`,
        last_seen: sql`case when excluded.last_seen > usage_daily.last_seen
          then excluded.last_seen else usage_daily.last_seen end`,
      }),
    )
    .execute();
}

export async function usage(db: Db, userId: string, fromDay: string): Promise<UsageEntry[]> {
  const rows = await db
    .selectFrom('usage_daily')
    .selectAll()
    .where('user_id', '=', userId)
    .where('day', '>=', fromDay)
    .orderBy('day')
    .orderBy('route')
    .execute();
  return rows.map(camel);
}
