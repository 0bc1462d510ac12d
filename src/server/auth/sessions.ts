import { randomBytes } from 'node:crypto';
import { sha256 } from '../hash.js';
import type { Session, User } from '../store/accounts.js';
import type { Store } from '../store/store.js';
import { directLookups, type IdentityLookups } from './lookups.js';

export const SESSION_TTL_MS = 30 * 24 * 60 * 60_000;

/** Starts a session; the token is random and only its hash is stored. */
export async function startSession(
  store: Store,
  user: User,
  now: number,
): Promise<{ token: string; session: Session }> {
  const token = `flcs_${randomBytes(32).toString('base64url')}`;
  const session = {
    userId: user.id,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + SESSION_TTL_MS).toISOString(),
  };
  await store.createSession(sha256(token), session);
  return { token, session };
}

/** The bearer token of a request, if any. */
export function bearerToken(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return m ? m[1] : null;
}

/** The live session and user of a token; expired sessions are deleted and count as none. */
export async function resolveSession(
  store: Store,
  token: string | null,
  now: number,
  lookups: IdentityLookups = directLookups(store),
): Promise<{ session: Session; user: User } | null> {
  if (!token) return null;
  const hash = sha256(token);
  const found = await lookups.session(hash);
  if (!found) return null;
  if (Date.parse(found.session.expiresAt) <= now) {
    // Housekeeping: not awaited, so a busy store cannot hold up or fail the request.
    store.deleteSession(hash).catch(() => undefined);
    return null;
  }
  return found;
}

export async function endSession(store: Store, token: string): Promise<void> {
  await store.deleteSession(sha256(token));
}
