import { randomBytes, randomUUID } from 'node:crypto';
import { sha256 } from '../hash.js';
import type { ApiKey, Session, User } from '../store/accounts.js';
import type { Store } from '../store/store.js';
import { resolveSession } from './sessions.js';
import { batchedLookups, directLookups, type IdentityLookups } from './lookups.js';

export const API_KEY_PREFIX = 'flc_';

/**
 * Who is calling: nobody, a bearer token that is no identity (unknown, expired, revoked), a
 * signed-in user, or an API key acting as its owner. Banned and api_disabled owners are still
 * identified; the gate decides what they may do.
 */
export type Identity =
  | { kind: 'anonymous' }
  | { kind: 'invalid' }
  | { kind: 'session'; user: User; session: Session }
  | { kind: 'key'; user: User; key: ApiKey };

/** `lastUsedAt` of a key is written at most once a minute (not on every request). */
const TOUCH_EVERY_MS = 60_000;

/** Creates a key: the text is returned once; only its hash is stored. */
export async function issueApiKey(
  store: Store,
  user: User,
  /** `notAfter` (ms since the epoch): the latest expiry allowed, which is also the default. */
  opts: { name: string; scopes: string[]; expiresInDays?: number; notAfter?: number | null; parentId?: string | null },
  now: number,
) {
  const text = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const requested = opts.expiresInDays ? now + opts.expiresInDays * 86_400_000 : null;
  const latest = opts.notAfter ?? null;
  const expires = requested === null ? latest : latest === null ? requested : Math.min(requested, latest);
  const key = await store.createApiKey(
    {
      id: randomUUID(),
      userId: user.id,
      name: opts.name,
      prefix: text.slice(0, 12),
      scopes: opts.scopes,
      createdAt: new Date(now).toISOString(),
      expiresAt: expires === null ? null : new Date(expires).toISOString(),
      parentId: opts.parentId ?? null,
    },
    sha256(text),
  );
  return { text, key };
}

/** Resolves a bearer token: `flc_…` keys (live and unexpired), else sessions. */
export async function resolveIdentity(
  store: Store,
  token: string | null,
  now: number,
  lookups: IdentityLookups = directLookups(store),
): Promise<Identity> {
  if (!token) return { kind: 'anonymous' };
  if (token.startsWith(API_KEY_PREFIX)) {
    const found = await lookups.key(sha256(token));
    if (!found) return { kind: 'invalid' };
    const { key, user } = found;
    if (key.revokedAt || (key.expiresAt && Date.parse(key.expiresAt) <= now)) return { kind: 'invalid' };
    touch(store, key, now);
    return { kind: 'key', user, key };
  }
  const found = await resolveSession(store, token, now, lookups);
  return found ? { kind: 'session', user: found.user, session: found.session } : { kind: 'invalid' };
}

/** Bookkeeping that never fails or holds up the request (a busy store just misses one). */
function touch(store: Store, key: ApiKey, now: number): void {
  if (!key.lastUsedAt || now - Date.parse(key.lastUsedAt) >= TOUCH_EVERY_MS) {
    key.lastUsedAt = new Date(now).toISOString();
    store.touchApiKey(key.id, key.lastUsedAt).catch(() => undefined);
  }
}

/**
 * `resolveIdentity` with a short memory: a token that resolved to a user in the last `maxAgeMs`
 * is not looked up again, unless this process changed an account since (the store's
 * `accountGeneration`: bans, deletions, sign-outs, revocations), so such a change applies to the
 * very next request, and one made by another process (`flc user remove`) within `maxAgeMs`.
 * With `maxAgeMs` 0 (a store shared by several servers) every request looks its token up, in
 * queries shared by the requests waiting at the same moment (`batchedLookup`).
 */
export class IdentityResolver {
  private readonly recent = new Map<string, { identity: Identity & { user: User }; at: number; until: number }>();
  private generation = -1;
  private readonly lookups: IdentityLookups;

  constructor(
    private readonly store: Store,
    private readonly maxAgeMs = 1_000,
    private readonly maxEntries = 10_000,
  ) {
    this.lookups = maxAgeMs > 0 ? directLookups(store) : batchedLookups(store);
  }

  async resolve(token: string | null, now: number): Promise<Identity> {
    if (!token) return { kind: 'anonymous' };
    if (this.maxAgeMs <= 0) return resolveIdentity(this.store, token, now, this.lookups);
    const generation = this.store.accountGeneration();
    if (generation !== this.generation) {
      this.recent.clear();
      this.generation = generation;
    }
    const seen = this.recent.get(token);
    if (seen && now >= seen.at && now - seen.at < this.maxAgeMs && now < seen.until) {
      if (seen.identity.kind === 'key') touch(this.store, seen.identity.key, now);
      return seen.identity;
    }
    this.recent.delete(token);
    const identity = await resolveIdentity(this.store, token, now, this.lookups);
    // An account changed while the lookup ran may have made this answer stale: not kept.
    if ((identity.kind === 'session' || identity.kind === 'key') && this.store.accountGeneration() === generation) {
      if (this.recent.size >= this.maxEntries) this.recent.clear();
      const expiresAt = identity.kind === 'session' ? identity.session.expiresAt : identity.key.expiresAt;
      this.recent.set(token, {
        identity,
        at: now,
        until: expiresAt ? Date.parse(expiresAt) : Number.POSITIVE_INFINITY,
      });
    }
    return identity;
  }
}
