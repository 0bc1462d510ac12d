import type { Selectable } from 'kysely';
import type { ApiKey, EndpointOverride, Tier, User, UserWithPassword } from './accounts.js';
import type { Database } from './schema.js';

/** Rows as the store reads them, turned into the shapes the rest of the server uses. */

type CamelName<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelName<T>>}` : S;
type SnakeName<S extends string> = S extends `${infer C}${infer R}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeName<R>}`
  : S;

/** A row's columns under camelCase names (`created_at`: `createdAt`), as the server's records have them. */
export type Camel<T> = { [K in keyof T & string as CamelName<K>]: T[K] };

const renamed = (o: object, name: (key: string) => string) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [name(k), v]));

/** The row as a record: its columns under camelCase names, values as read. */
export const camel = <T extends object>(row: T) =>
  renamed(row, (k) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())) as Camel<T>;

/** The columns of `row` whose names begin with `prefix`, without it: a joined table's aliased columns. */
export const unprefixed = <T extends object, P extends string>(row: T, prefix: P) =>
  Object.fromEntries(
    Object.entries(row).flatMap(([k, v]) => (k.startsWith(prefix) ? [[k.slice(prefix.length), v]] : [])),
  ) as { [K in keyof T as K extends `${P}${infer R}` ? R : never]: T[K] };

/** The record as a row: its fields under the snake_case names of their columns, values as given. */
export const snake = <T extends object>(record: T) =>
  renamed(record, (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)) as {
    [K in keyof T & string as SnakeName<K>]: T[K];
  };

export function toUser(r: Selectable<Database['users']>): User {
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

export function toUserWithPassword(r: Selectable<Database['users']>): UserWithPassword {
  return {
    ...toUser(r),
    password: { hash: r.password_hash, salt: r.password_salt, iterations: Number(r.password_iterations) },
  };
}

export function toApiKey({ key_hash, parent_id, ...r }: Selectable<Database['api_keys']>): ApiKey {
  return { ...camel(r), scopes: JSON.parse(r.scopes) as string[], ...(parent_id ? { parentId: parent_id } : {}) };
}

export function toTier(
  r: Pick<Selectable<Database['tiers']>, 'tier_name' | 'order_rank' | 'rate_limit' | 'features'>,
): Tier {
  return {
    name: r.tier_name,
    orderRank: Number(r.order_rank),
    rateLimit: Number(r.rate_limit),
    features: JSON.parse(r.features) as Record<string, unknown>,
  };
}

export function toOverride({ is_active, ...r }: Selectable<Database['endpoint_overrides']>): EndpointOverride {
  const requiredScopes = r.required_scopes === null ? null : (JSON.parse(r.required_scopes) as string[]);
  return { ...camel(r), requiredScopes, isPublic: Number(r.is_public) === 1 };
}
