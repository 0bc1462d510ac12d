import { z } from '@hono/zod-openapi';
import type { Camel } from './rows.js';
import type { Selectable } from 'kysely';
import type { Database } from './schema.js';

/** A local user as the store returns it and the account and admin routes show it: never with its password hash. */
export const userSchema = z.object({
  id: z.string(),
  /** The sign-in identifier: an email address (lowercase) or an E.164 phone number. */
  email: z.string(),
  identifierType: z.enum(['email', 'phone']),
  name: z.string().nullable(),
  role: z.enum(['admin', 'user']),
  tier: z.string(),
  banned: z.boolean(),
  banReason: z.string().nullable(),
  apiDisabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type User = z.infer<typeof userSchema>;

/** A user to create: the identifier type defaults to `email`, the name to null. */
export type NewUser = Pick<User, 'email' | 'role' | 'tier'> &
  Partial<Pick<User, 'identifierType' | 'name'>> & { password: { hash: string; salt: string; iterations: number } };

/** A session's row without its token's hash. */
export type Session = Omit<Camel<Database['sessions']>, 'tokenHash'>;

/** An API key as listed: never the key text or its hash. */
export type ApiKey = Omit<Camel<Selectable<Database['api_keys']>>, 'keyHash' | 'scopes' | 'parentId'> & {
  scopes: string[];
  /** The key this one was made with (revoking it revokes this one); null or absent: made by a session. */
  parentId?: string | null;
};

export interface Tier {
  name: string;
  orderRank: number;
  /** Requests per minute; 0 means unlimited. */
  rateLimit: number;
  features: Record<string, unknown>;
}

export interface Scope {
  name: string;
  /** The lowest tier that may use the scope. */
  requiredTier: string;
}

/** A per-endpoint change of the default access rule (the specification's endpoint auth override). */
export type EndpointOverride = Omit<
  Camel<Selectable<Database['endpoint_overrides']>>,
  'isActive' | 'requiredScopes' | 'isPublic'
> & {
  /** null keeps the route's default scopes. */
  requiredScopes: string[] | null;
  isPublic: boolean;
};

/** What an admin may change on a user; `banned` true also ends the user's sessions. */
export type UserPatch = Partial<Pick<User, 'role' | 'tier' | 'apiDisabled' | 'banned' | 'banReason'>>;

/** Requests of one user on one UTC day to one route (a `usage_daily` row). */
export type UsageEntry = Camel<Database['usage_daily']>;

/** A user with the password hash, for sign-in and password changes only. */
export type UserWithPassword = User & Pick<NewUser, 'password'>;
