import { sql } from 'kysely';
import type { ApiKey, User } from '../accounts.js';
import { snake, toApiKey, toUser, unprefixed } from '../rows.js';
import type { Db } from './db.js';
import type { Engine } from '../migrations/columns.js';
import { ForbiddenError } from '../../../core/errors/index.js';

/** API keys (only their SHA-256 is kept). */

/**
 * Stores a new key. A key made with a key (`parentId`) is stored only while that key is not
 * revoked, checked in the same transaction: on PostgreSQL the parent's row is locked until the
 * child is in, so a revocation (which updates that row first, then revokes what it made) either
 * waits and then revokes the child too, or is waited for and refuses the child. SQLite runs one
 * write transaction at a time.
 */
export async function createApiKey(
  db: Db,
  key: Omit<ApiKey, 'revokedAt' | 'lastUsedAt'>,
  keyHash: string,
  engine: Engine,
): Promise<ApiKey> {
  if (key.parentId) {
    let parent = db.selectFrom('api_keys').select('id').where('id', '=', key.parentId).where('revoked_at', 'is', null);
    if (engine === 'postgres') parent = parent.forUpdate();
    if (!(await parent.executeTakeFirst()))
      throw new ForbiddenError('The API key making this key has been revoked: it makes no more keys');
  }
  await db
    .insertInto('api_keys')
    .values({ ...snake(key), key_hash: keyHash, scopes: JSON.stringify(key.scopes), parent_id: key.parentId ?? null })
    .execute();
  return { ...key, revokedAt: null, lastUsedAt: null };
}

export async function apiKeys(db: Db, userId: string): Promise<ApiKey[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toApiKey);
}

/** Keys with their owners, by key hash, in one query (every request with a key asks). */
export async function apiKeysWithUsers(db: Db, keyHashes: string[]): Promise<Map<string, { key: ApiKey; user: User }>> {
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('users', 'users.id', 'k.user_id')
    .selectAll('users')
    .select([
      'k.id as k_id',
      'k.user_id as k_user_id',
      'k.name as k_name',
      'k.prefix as k_prefix',
      'k.key_hash as k_key_hash',
      'k.scopes as k_scopes',
      'k.created_at as k_created_at',
      'k.expires_at as k_expires_at',
      'k.revoked_at as k_revoked_at',
      'k.last_used_at as k_last_used_at',
      'k.parent_id as k_parent_id',
    ])
    .where('k.key_hash', 'in', keyHashes)
    .execute();
  return new Map(rows.map((r) => [r.k_key_hash, { key: toApiKey(unprefixed(r, 'k_')), user: toUser(r) }]));
}

export async function revokeApiKey(db: Db, userId: string, id: string, at: string): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return false;
  // What the key made, and what those made, go with it: a key cannot outlive the key it came from.
  await sql`with recursive made(id) as (
      select id from api_keys where parent_id = ${id}
      union select k.id from api_keys k join made on k.parent_id = made.id)
    update api_keys set revoked_at = ${at} where id in (select id from made) and revoked_at is null`.execute(db);
  return true;
}

export async function touchApiKey(db: Db, id: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
