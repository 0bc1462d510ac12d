import type { FlashEntry } from '../service-records.js';
import type { FlashMessagesTable } from '../schema.js';
import type { Db } from './db.js';

/** Flash messages: stored once, taken once. */

const entry = (r: FlashMessagesTable): FlashEntry => ({
  token: r.token,
  code: r.code,
  message: r.message,
  type: r.type,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** Adds an entry and drops the expired ones (in the caller's transaction), so the table stays small. */
export async function putFlash(db: Db, e: FlashEntry): Promise<void> {
  await db.deleteFrom('flash_messages').where('expires_at', '<=', e.createdAt).execute();
  await db
    .insertInto('flash_messages')
    .values({
      token: e.token,
      code: e.code,
      message: e.message,
      type: e.type,
      created_at: e.createdAt,
      expires_at: e.expiresAt,
    })
    .execute();
}

/** One DELETE … RETURNING: the row goes to exactly one reader, whichever engine runs it. */
export async function takeFlash(db: Db, token: string, now: string): Promise<FlashEntry | null> {
  const row = await db.deleteFrom('flash_messages').where('token', '=', token).returningAll().executeTakeFirst();
  if (!row || row.expires_at <= now) return null;
  return entry(row);
}
