import { randomUUID } from 'node:crypto';
import type { NewUser, Session, User, UserPatch, UserWithPassword } from '../accounts.js';
import { snake, toUser, toUserWithPassword } from '../rows.js';
import { countOf, type Db } from './db.js';

/** Local users and their sessions. */

export async function createUser(db: Db, user: NewUser): Promise<User> {
  const at = new Date().toISOString();
  const row = await db
    .insertInto('users')
    .values({
      id: randomUUID(),
      email: user.email,
      identifier_type: user.identifierType ?? 'email',
      name: user.name ?? null,
      password_hash: user.password.hash,
      password_salt: user.password.salt,
      password_iterations: user.password.iterations,
      role: user.role,
      tier: user.tier,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toUser(row);
}

export async function userWhere(db: Db, column: 'id' | 'email', value: string): Promise<UserWithPassword | null> {
  const row = await db.selectFrom('users').selectAll().where(column, '=', value).executeTakeFirst();
  return row ? toUserWithPassword(row) : null;
}

export async function userById(db: Db, id: string): Promise<User | null> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toUser(row) : null;
}

export async function listUsers(db: Db, page?: { limit: number; offset: number }): Promise<User[]> {
  let query = db.selectFrom('users').selectAll().orderBy('created_at').orderBy('email');
  if (page) query = query.limit(page.limit).offset(page.offset);
  return (await query.execute()).map(toUser);
}

/** One page of users, oldest first, and how many there are (in the caller's transaction). */
export async function usersPage(db: Db, limit: number, offset: number) {
  return { users: await listUsers(db, { limit, offset }), total: await countOf(db.selectFrom('users')) };
}

/** Applies the patch (in the caller's transaction); a ban ends every session of the user. */
export async function updateUser(db: Db, id: string, patch: UserPatch, at: string): Promise<User | null> {
  const current = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  if (!current) return null;
  const wasBanned = Number(current.banned) === 1;
  const banned = patch.banned ?? wasBanned;
  const row = await db
    .updateTable('users')
    .set({
      role: patch.role ?? current.role,
      tier: patch.tier ?? current.tier,
      api_disabled: patch.apiDisabled === undefined ? current.api_disabled : patch.apiDisabled ? 1 : 0,
      updated_at: at,
      banned: banned ? 1 : 0,
      banned_at: !banned ? null : wasBanned ? current.banned_at : at,
      ban_reason: !banned ? null : patch.banReason !== undefined ? patch.banReason : current.ban_reason,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  // Keys stay but no longer act (their owner is banned).
  if (banned && !wasBanned) await db.deleteFrom('sessions').where('user_id', '=', id).execute();
  return toUser(row);
}

export async function deleteUserWhere(db: Db, column: 'id' | 'email', value: string): Promise<boolean> {
  return Number((await db.deleteFrom('users').where(column, '=', value).executeTakeFirst()).numDeletedRows) > 0;
}

/** Sets the password and ends the sessions but `keep` (in the caller's transaction). */
export async function setPassword(
  db: Db,
  id: string,
  password: NewUser['password'],
  keep: string | null,
  at: string,
  revokeKeys = false,
): Promise<number | null> {
  const res = await db
    .updateTable('users')
    .set({
      password_hash: password.hash,
      password_salt: password.salt,
      password_iterations: password.iterations,
      updated_at: at,
    })
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return null;
  // A reset by an administrator assumes the account was someone else's for a while: what that
  // someone could have made (keys, which make keys) ends with the sessions.
  if (revokeKeys)
    await db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('user_id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  let ending = db.deleteFrom('sessions').where('user_id', '=', id);
  if (keep) ending = ending.where('token_hash', '<>', keep);
  return Number((await ending.executeTakeFirst()).numDeletedRows);
}

export async function createSession(db: Db, tokenHash: string, session: Session): Promise<void> {
  await db
    .insertInto('sessions')
    .values({ token_hash: tokenHash, ...snake(session) })
    .execute();
}

/** Sessions with their users, by token hash, in one query (every signed-in request asks). */
export async function sessionsWithUsers(
  db: Db,
  tokenHashes: string[],
): Promise<Map<string, { session: Session; user: User }>> {
  const rows = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .selectAll('users')
    .select([
      'sessions.token_hash as token_hash',
      'sessions.created_at as session_created_at',
      'sessions.expires_at as session_expires_at',
    ])
    .where('sessions.token_hash', 'in', tokenHashes)
    .execute();
  return new Map(
    rows.map((r) => [
      r.token_hash,
      { session: { userId: r.id, createdAt: r.session_created_at, expiresAt: r.session_expires_at }, user: toUser(r) },
    ]),
  );
}

export async function deleteSessions(db: Db, where: { tokenHash: string } | { userId: string }): Promise<number> {
  const query =
    'tokenHash' in where
      ? db.deleteFrom('sessions').where('token_hash', '=', where.tokenHash)
      : db.deleteFrom('sessions').where('user_id', '=', where.userId);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}
