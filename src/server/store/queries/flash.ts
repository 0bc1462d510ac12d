import type { FlashEntry } from '../service-records.js';
import { camel, snake } from '../rows.js';
import type { Db } from './db.js';

/** Flash messages: stored once, taken once. */

/** Adds an entry and drops the expired ones (in the caller's transaction), so the table stays small. */
export async function putFlash(db: Db, e: FlashEntry): Promise<void> {
  await db.deleteFrom('flash_messages').where('expires_at', '<=', e.createdAt).execute();
  await db.insertInto('flash_messages').values(snake(e)).execute();
}

/** One DELETE … RETURNING: the row goes to exactly one reader, whichever engine runs it. */
export async function takeFlash(db: Db, token: string, now: string): Promise<FlashEntry | null> {
  const row = await db.deleteFrom('flash_messages').where('token', '=', token).returningAll().executeTakeFirst();
  if (!row || row.expires_at <= now) return null;
  return camel(row);
}
