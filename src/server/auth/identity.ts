import { randomBytes, randomUUID } from 'node:crypto';
import { sha256 } from '../hash.js';
import type { AccountStore, ApiKey, User } from '../store/accounts.js';
import { resolveSession } from './sessions.js';

export const API_KEY_PREFIX = 'flc_';
/** Scopes a key can carry (the scopes table of the admin system will extend this). */
export const KNOWN_SCOPES = ['compile', 'rules', 'admin'] as const;

/** Who is calling: a signed-in user, an API key (acting as its owner), or nobody. */
export type Identity =
  | { kind: 'anonymous' }
  | { kind: 'session'; user: User }
  | { kind: 'key'; user: User; key: ApiKey };

/** Creates a key: the text is returned once; only its hash is stored. */
export function issueApiKey(store: AccountStore, user: User, opts: { name: string; scopes: string[]; expiresInDays?: number }, now: number) {
  const text = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const key = store.createApiKey(
    {
      id: randomUUID(),
      userId: user.id,
      name: opts.name,
      prefix: text.slice(0, 12),
      scopes: opts.scopes,
      createdAt: new Date(now).toISOString(),
      expiresAt: opts.expiresInDays ? new Date(now + opts.expiresInDays * 86_400_000).toISOString() : null,
    },
    sha256(text),
  );
  return { text, key };
}

/** Resolves a bearer token: `flc_…` keys (live, unexpired, owner not banned), else sessions. */
export function resolveIdentity(store: AccountStore, token: string | null, now: number): Identity {
  if (!token) return { kind: 'anonymous' };
  if (token.startsWith(API_KEY_PREFIX)) {
    const key = store.apiKeyByHash(sha256(token));
    if (!key || key.revokedAt || (key.expiresAt && Date.parse(key.expiresAt) <= now)) return { kind: 'anonymous' };
    const user = store.userById(key.userId);
    if (!user || user.banned) return { kind: 'anonymous' };
    store.touchApiKey(key.id, new Date(now).toISOString());
    return { kind: 'key', user, key };
  }
  const found = resolveSession(store, token, now);
  if (!found || found.user.banned) return { kind: 'anonymous' };
  return { kind: 'session', user: found.user };
}
