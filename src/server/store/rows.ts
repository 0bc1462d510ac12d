import type { Selectable } from 'kysely';
import type { ApiKey, EndpointOverride, Tier, User, UserWithPassword } from './accounts.js';
import type { ApiKeysTable, EndpointOverridesTable, TiersTable, UsersTable } from './schema.js';

/** Rows as the store reads them, turned into the shapes the rest of the server uses. */

export function toUser(r: Selectable<UsersTable>): User {
  return {
    id: String(r.id),
    email: String(r.email),
    identifierType: r.identifier_type === 'phone' ? 'phone' : 'email',
    name: r.name ?? null,
    role: r.role as User['role'],
    tier: String(r.tier),
    banned: Number(r.banned) === 1,
    banReason: r.ban_reason ?? null,
    apiDisabled: Number(r.api_disabled) === 1,
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at ?? r.created_at),
  };
}

export function toUserWithPassword(r: Selectable<UsersTable>): UserWithPassword {
  return {
    ...toUser(r),
    password: { hash: r.password_hash, salt: r.password_salt, iterations: Number(r.password_iterations) },
  };
}

export function toApiKey(r: Selectable<ApiKeysTable>): ApiKey {
  return {
    id: String(r.id),
    userId: String(r.user_id),
    name: String(r.name),
    prefix: String(r.prefix),
    scopes: JSON.parse(r.scopes) as string[],
    createdAt: String(r.created_at),
    expiresAt: r.expires_at ?? null,
    revokedAt: r.revoked_at ?? null,
    lastUsedAt: r.last_used_at ?? null,
    ...(r.parent_id ? { parentId: r.parent_id } : {}),
  };
}

export function toTier(r: Pick<Selectable<TiersTable>, 'tier_name' | 'order_rank' | 'rate_limit' | 'features'>): Tier {
  return {
    name: r.tier_name,
    orderRank: Number(r.order_rank),
    rateLimit: Number(r.rate_limit),
    features: JSON.parse(r.features) as Record<string, unknown>,
  };
}

export function toOverride(r: Selectable<EndpointOverridesTable>): EndpointOverride {
  return {
    id: Number(r.id),
    pathPattern: r.path_pattern,
    method: r.method,
    requiredTier: r.required_tier ?? null,
    requiredScopes: r.required_scopes == null ? null : (JSON.parse(r.required_scopes) as string[]),
    isPublic: Number(r.is_public) === 1,
  };
}
