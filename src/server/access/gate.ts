import { PERMISSIONS } from '../routes/admin-system/permissions.js';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import type { ApiKey, EndpointOverride, Scope, Tier, User } from '../store/accounts.js';
import { problem } from '../problem.js';
import { namesParameter } from './override-scope.js';
import { clientLimitKey } from '../client-address.js';
import { StoreUnavailableError } from '../../core/errors/index.js';
import { bearerToken } from '../auth/sessions.js';
import { IdentityResolver, type Identity } from '../auth/identity.js';
import type { RateLimiter } from '../rate-limit.js';
import type { Access } from '../routing/route.js';
import type { UsageRecorder } from './usage.js';

/** The caller of a request that passed the gate, for the routes to act on. */
export interface Caller {
  /** Null for anonymous callers (and for unusable credentials on public routes). */
  user: User | null;
  /** The API key the caller used, if any. */
  key: ApiKey | null;
  /** The tier the caller is counted and limited in. */
  tier: Tier;
  /** Scopes the caller may use: a key's own scopes, a session's every scope; both only as far as the tier allows. */
  scopes(): ReadonlySet<string>;
  /** Admin permissions from the caller's assigned roles (administrators only; empty otherwise). Read on first use. */
  permissions(): Promise<ReadonlySet<string>>;
  /**
   * The gate's decision again, for one more request of a long-lived connection (a WebSocket's
   * `compile` messages): the credentials, access rule and rate limit as they are now, counted as
   * the gate counted this request. The refusal's status and message, or the caller as it is now.
   */
  again(): Promise<Caller | { status: number; message: string }>;
}

/** The tiers migration 004 seeds, for when the store cannot be read or a rule names a missing tier. */
const SEEDED_TIERS = new Map<string, Tier>(
  Object.entries({ anonymous: 10, free: 60, pro: 300, admin: 0 }).map(([name, rateLimit], orderRank) => [
    name,
    { name, orderRank, rateLimit, features: {} },
  ]),
);
const SEEDED_ANONYMOUS = SEEDED_TIERS.get('anonymous')!;

/** The access tables, re-read when this process changes them and at most a second stale otherwise. */
interface AccessTables {
  tiers: Map<string, Tier>;
  scopes: Scope[];
  overrides: EndpointOverride[];
  permissions: Map<string, readonly string[]>;
}

function accessTables(deps: AppDeps, log: (message: string) => void, maxAgeMs = 1_000): () => Promise<AccessTables> {
  let cached: AccessTables | undefined;
  let generation = -1;
  let loadedAt = 0;
  // One reload at a time; requests meanwhile wait for it rather than start their own.
  let loading: Promise<AccessTables> | undefined;
  const load = async (t: number): Promise<AccessTables> => {
    const store = deps.store;
    try {
      const seen = store.accessGeneration();
      const [tiers, scopes, overrides, roles] = await Promise.all([
        store.tiers(),
        store.scopes(),
        store.endpointOverrides(),
        store.roles(),
      ]);
      generation = seen;
      loadedAt = t;
      cached = {
        tiers: new Map(tiers.map((tier) => [tier.name, tier])),
        scopes,
        overrides,
        permissions: new Map(roles.map((r) => [r.name, r.permissions])),
      };
    } catch (err) {
      // A broken store must not take the public routes (health among them) down with it.
      log(`access: cannot read the access tables: ${(err as Error).message}`);
    }
    // Never read: the seeded tiers, no overrides, no permissions.
    return cached ?? { tiers: SEEDED_TIERS, scopes: [], overrides: [], permissions: new Map() };
  };
  return async () => {
    const t = deps.now();
    const fresh = cached && generation === deps.store.accessGeneration() && t - loadedAt < maxAgeMs && t >= loadedAt;
    if (fresh && cached) return cached;
    loading ??= load(t).finally(() => {
      loading = undefined;
    });
    return loading;
  };
}

/** What a request needs after the endpoint overrides are applied. */
interface Rule {
  public: boolean;
  session: boolean;
  /** Ends the caller's own sessions: any signed-in session may, banned or API-disabled. */
  endsSession: boolean;
  /** The lowest tier allowed (non-admin routes). */
  tier: string | null;
  /** An administrators' route: the permission it needs (null: none beyond being one). */
  admin?: string | null;
  scopes: readonly string[];
}

/**
 * The most specific active override for a path and method: exact paths before prefixes, longer
 * prefixes first, a method before `*`. One whose path names a parameter (`/api/rules/:id`, which no
 * request's path is) reaches nothing, whatever wrote it.
 */
export function matchOverride(
  overrides: readonly EndpointOverride[],
  method: string,
  path: string,
): EndpointOverride | undefined {
  let best: EndpointOverride | undefined;
  let bestScore = -1;
  for (const o of overrides) {
    if ((o.method !== '*' && o.method.toUpperCase() !== method) || namesParameter(o.pathPattern)) continue;
    let score: number;
    if (o.pathPattern.endsWith('/*')) {
      const prefix = o.pathPattern.slice(0, -2);
      if (path !== prefix && !path.startsWith(`${prefix}/`)) continue;
      score = prefix.length * 4;
    } else {
      if (o.pathPattern !== path && `${o.pathPattern}/` !== path) continue;
      score = 1_000_000;
    }
    if (o.method !== '*') score += 2;
    if (score > bestScore) {
      best = o;
      bestScore = score;
    }
  }
  return best;
}

function ruleFor(access: Access, override: EndpointOverride | undefined): Rule {
  const tier = typeof access === 'object' && 'tier' in access ? access.tier : null;
  const scope = typeof access === 'object' && 'scope' in access ? access.scope : undefined;
  const admin = typeof access === 'object' && 'admin' in access ? access.admin : undefined;
  const base: Rule = {
    public: access === 'public' || access === 'public-unmetered',
    session: access === 'session' || access === 'own-session',
    endsSession: access === 'own-session',
    tier,
    admin,
    // An administrator's API key needs the `admin` scope; other routes name the scope a key needs.
    scopes: admin !== undefined ? ['admin'] : scope ? [scope] : [],
  };
  // Admin routes keep their rule: an override cannot open the administration. Overrides relax or
  // tighten a tier and scopes only: the kind of credential a route takes (a signed-in session on
  // `session` routes, never an API key or no one) stays with its descriptor.
  if (!override || admin !== undefined || base.session) return base;
  if (override.isPublic || override.requiredTier === 'anonymous')
    return { ...base, public: true, session: false, tier: null };
  return {
    ...base,
    public: base.public && !override.requiredTier && !override.requiredScopes,
    tier: override.requiredTier ?? base.tier ?? (base.public && override.requiredScopes ? 'free' : null),
    scopes: override.requiredScopes ?? base.scopes,
  };
}

type Denial = [status: 401 | 403, detail: string];

/**
 * Gates a described route's requests: the identity (session or API key), the route's access rule
 * with the endpoint overrides applied, then the caller's per-minute rate limit. Passing callers
 * are set as `caller` on the context and their requests are counted in the usage records.
 */
export function accessGate(
  deps: AppDeps,
  usage: UsageRecorder,
  limiter: RateLimiter,
  log: (message: string) => void = () => undefined,
): MiddlewareHandler {
  const tables = accessTables(deps, log);
  // Several servers on one database: each request looks its token up, so that a revocation or a
  // ban made through another server applies at once. One server: a token is remembered a second.
  const identities = new IdentityResolver(deps.store, deps.store.engine === 'sqlite' ? 1_000 : 0);
  const rank = (t: AccessTables, name: string) =>
    t.tiers.get(name)?.orderRank ?? SEEDED_TIERS.get(name)?.orderRank ?? Number.MAX_SAFE_INTEGER;
  // A user whose tier is missing or inactive counts as free.
  const tierOf = (t: AccessTables, user: User | null): Tier =>
    (user ? (t.tiers.get(user.tier) ?? t.tiers.get('free')) : undefined) ??
    t.tiers.get('anonymous') ??
    SEEDED_ANONYMOUS;
  const scopesOf = (t: AccessTables, user: User, key: ApiKey | null): Set<string> => {
    const allowed = t.scopes.filter((s) => rank(t, s.requiredTier) <= rank(t, user.tier)).map((s) => s.name);
    return new Set(key ? allowed.filter((s) => key.scopes.includes(s)) : allowed);
  };

  const permissionsOf = async (t: AccessTables, user: User, at: number): Promise<Set<string>> => {
    const granted = new Set<string>();
    if (user.role !== 'admin') return granted;
    for (const role of await deps.store.rolesOf(user.id, new Date(at).toISOString()))
      for (const p of t.permissions.get(role) ?? []) granted.add(p);
    return granted;
  };

  async function deny(
    t: AccessTables,
    rule: Rule,
    identity: Identity,
    permissions: () => Promise<Set<string>>,
  ): Promise<Denial | null> {
    if (identity.kind === 'anonymous') {
      if (rule.tier && rank(t, rule.tier) > rank(t, 'free'))
        return [403, `This route needs the ${rule.tier} tier or higher`];
      return [401, 'Authentication required'];
    }
    if (identity.kind === 'invalid') return [401, 'Invalid or expired credentials'];
    const { user } = identity;
    const key = identity.kind === 'key' ? identity.key : null;
    if (rule.endsSession && identity.kind === 'session') return null;
    if (user.banned) return [403, 'This account is banned'];
    if (user.apiDisabled) return [403, 'API access is disabled for this account'];
    if (rule.session && key) return [403, 'This route needs a signed-in session, not an API key'];
    if (rule.admin !== undefined) {
      if (user.role !== 'admin' || user.tier !== 'admin') return [403, 'Administrators only'];
      if (key && !key.scopes.includes('admin')) return [403, 'API key missing required scope: admin'];
      if (rule.admin) {
        // `*`: a route for whoever holds every permission (the query route reads every area's data).
        const granted = await permissions();
        const missing = (rule.admin === '*' ? PERMISSIONS : [rule.admin]).find((p) => !granted.has(p));
        if (missing)
          return [
            403,
            rule.admin === '*'
              ? `This route needs every permission (missing ${missing})`
              : `Missing permission: ${missing}`,
          ];
      }
      return null;
    }
    if (rule.tier && rank(t, tierOf(t, user).name) < rank(t, rule.tier))
      return [403, `This route needs the ${rule.tier} tier or higher`];
    const scopes = scopesOf(t, user, key);
    const missing = rule.scopes.find(
      (s) => !scopes.has(s) && (key !== null || t.scopes.some((known) => known.name === s)),
    );
    if (missing)
      return [
        403,
        key ? `API key missing required scope: ${missing}` : `Your tier does not allow the scope: ${missing}`,
      ];
    return null;
  }

  const gate = async (c: Context, next: () => Promise<void>): Promise<Response | undefined> => {
    const t = await tables();
    const at = deps.now();
    const route = c.var.route;
    const own = ruleFor(route.access, matchOverride(t.overrides, c.req.method, c.req.path));
    // A twin's overrides only add to what the route's own rule asks: the caller must pass both.
    const twin = route.twin && ruleFor(route.access, matchOverride(t.overrides, route.twin.method, route.twin.path));
    const rules = twin ? [own, twin] : [own];
    const open = rules.every((r) => r.public);
    // An in-process call a console form makes after the gate counted the form itself is not counted again.
    const metered = route.access !== 'public-unmetered' && !countedByConsole(c);
    let identity: Identity;
    try {
      identity = await identities.resolve(bearerToken(c.req.header('authorization')), at);
    } catch (err) {
      if (!open) {
        if (err instanceof StoreUnavailableError) throw err;
        log(`access: cannot resolve the caller: ${(err as Error).message}`);
        return problem(c, 503, 'The account store is unavailable');
      }
      identity = { kind: 'anonymous' };
    }

    c.set('identity', identity);
    let permissions: Promise<Set<string>> | undefined;
    const permissionsOnce = () =>
      (permissions ??= 'user' in identity ? permissionsOf(t, identity.user, at) : Promise.resolve(new Set<string>()));
    let denial: Denial | null = null;
    for (const rule of rules) denial ??= rule.public ? null : await deny(t, rule, identity, permissionsOnce);
    // On public routes unusable credentials (unknown, expired, banned, disabled) count as none.
    const known = identity.kind === 'session' || identity.kind === 'key' ? identity : null;
    const usable = known !== null && !known.user.banned && !known.user.apiDisabled;
    const user = usable ? known.user : null;
    const key = usable && known.kind === 'key' ? known.key : null;
    // A refusal is counted as the caller's requests are: an account's against its tier's limit,
    // anyone else's (no or unusable credentials) against the address's anonymous limit. So
    // refused requests, and what they write (the audit rows of refused admin calls), are limited too.
    const counted = denial && 'user' in identity ? identity.user : user;
    const tier = tierOf(t, counted);
    const limitKey = counted ? `user:${counted.id}` : `ip:${clientLimitKey(c)}`;
    const exceeded = `Rate limit exceeded: ${tier.rateLimit} requests per minute for the ${tier.name} tier`;
    if (metered && tier.rateLimit > 0) {
      const hit = await limiter.hit(limitKey, tier.rateLimit);
      // A refused request's answer tells its refusal, not the caller's remaining requests.
      if (!denial) {
        c.header('x-ratelimit-limit', String(tier.rateLimit));
        c.header('x-ratelimit-remaining', String(hit.remaining));
        c.header('x-ratelimit-reset', String(hit.resetSeconds));
      }
      if (hit.limited) {
        c.header('retry-after', String(hit.resetSeconds));
        return problem(c, 429, exceeded);
      }
    }
    if (denial) return problem(c, denial[0], denial[1]);

    // Scopes and permissions are worked out only for the routes that ask (keys, my-permissions).
    let scopes: Set<string> | undefined;
    const none = new Set<string>();
    const scopesOnce = (u: User) => (scopes ??= scopesOf(t, u, key));
    const caller: Caller = {
      user,
      key,
      tier,
      scopes: () => (user ? scopesOnce(user) : none),
      permissions: () => (user ? permissionsOnce() : Promise.resolve(none)),
      again: async () => {
        // The context is the upgrade's, answered long ago: a header an earlier refusal set is not this one's.
        c.header('retry-after', undefined);
        const refused = await gate(c, async () => undefined);
        if (!refused) return callerOf(c);
        const { detail } = (await refused.json()) as { detail: string };
        const retry = refused.status === 429 && refused.headers.get('retry-after');
        return { status: refused.status, message: retry ? `${detail}; retry in ${retry} s` : detail };
      },
    };
    c.set('caller', caller);
    if (user) usage.record(user.id, `${route.method} ${route.path}`);
    await next();
  };
  return gate;
}

/** The caller the gate let through (anonymous when the gate did not run). */
export function callerOf(c: Context): Caller {
  return (
    c.get('caller') ?? {
      user: null,
      key: null,
      tier: SEEDED_ANONYMOUS,
      scopes: () => new Set(),
      permissions: async () => new Set(),
      again: async () => callerOf(c),
    }
  );
}

/** Who the gate found the caller to be, even when it refused them (for the audit of refusals). */
export function identityOf(c: Context): Identity | undefined {
  return c.get('identity');
}

/**
 * Whether this request is an in-process call of a console form the gate has already counted
 * (`callApi` with `counted`). The mark is in the request's environment, which only the server's
 * own code sets: an HTTP client cannot send it.
 */
export const countedByConsole = (c: Context): boolean =>
  (c.env as { flcCountedByConsole?: unknown } | undefined)?.flcCountedByConsole === true;
