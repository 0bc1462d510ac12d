import type { ErrorEvent } from '../service-records.js';
import type { Db } from './db.js';

/** Browser error reports (`error_events`). */

export async function addErrorEvent(db: Db, e: ErrorEvent): Promise<void> {
  await db
    .insertInto('error_events')
    .values({
      id: e.id,
      source: e.source,
      severity: e.severity,
      message: e.message,
      stack: e.stack,
      context: e.context,
      url: e.url,
      user_agent: e.userAgent,
      session_id: e.sessionId,
      created_at: e.createdAt,
    })
    .execute();
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
  const rows = await db
    .selectFrom('error_events')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
  const total = await db
    .selectFrom('error_events')
    .select((e) => e.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  const events: ErrorEvent[] = rows.map((r) => ({
    id: r.id,
    source: r.source,
    severity: r.severity as ErrorEvent['severity'],
    message: r.message,
    stack: r.stack,
    context: r.context,
    url: r.url,
    userAgent: r.user_agent,
    sessionId: r.session_id,
    createdAt: r.created_at,
  }));
  return { events, total: Number(total.n) };
}
