/** A local user as the store returns it: never with its password hash. */
export interface User {
  id: string;
  /** The sign-in identifier: an email address (lowercase) or an E.164 phone number. */
  email: string;
  identifierType: 'email' | 'phone';
  name: string | null;
  role: 'admin' | 'user';
  tier: string;
  banned: boolean;
  banReason: string | null;
  apiDisabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface NewUser {
  email: string;
  identifierType?: 'email' | 'phone';
  name?: string | null;
  role: 'admin' | 'user';
  tier: string;
  password: { hash: string; salt: string; iterations: number };
}

export interface Session {
  userId: string;
  createdAt: string;
  expiresAt: string;
}

/** An API key as listed: never the key text or its hash. */
export interface ApiKey {
  id: string;
  userId: string;
  name: string;
  /** The first characters of the key, to tell keys apart. */
  prefix: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  /** The key this one was made with (revoking it revokes this one); null or absent: made by a session. */
  parentId?: string | null;
}

export interface Tier {
  name: string;
  orderRank: number;
  /** Requests per minute; 0 means unlimited. */
  rateLimit: number;
  features: Record<string, unknown>;
}

export interface Role {
  name: string;
  permissions: string[];
}

export interface Scope {
  name: string;
  /** The lowest tier that may use the scope. */
  requiredTier: string;
}

/** A per-endpoint change of the default access rule (the specification's endpoint auth override). */
export interface EndpointOverride {
  id: number;
  /** A path, or a path prefix ending in `/*`. */
  pathPattern: string;
  /** An HTTP method or `*`. */
  method: string;
  /** null keeps the route's default tier. */
  requiredTier: string | null;
  /** null keeps the route's default scopes. */
  requiredScopes: string[] | null;
  isPublic: boolean;
}

/** What an admin may change on a user; `banned` true also ends the user's sessions. */
export interface UserPatch {
  role?: 'admin' | 'user';
  tier?: string;
  apiDisabled?: boolean;
  banned?: boolean;
  banReason?: string | null;
}

export interface TierPatch {
  rateLimit?: number;
  features?: Record<string, unknown>;
  isActive?: boolean;
}

/** Requests of one user on one UTC day to one route. */
export interface UsageEntry {
  userId: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** Method and route pattern, e.g. `POST /api/compile`. */
  route: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
}

/** A user with the password hash, for sign-in and password changes only. */
export type UserWithPassword = User & { password: { hash: string; salt: string; iterations: number } };

/**
 * The account part of the store (users, sessions, API keys, tiers and roles). Every call goes to
 * the database; the two generations are this process's own counters.
 */
export interface AccountStore {
  /** Throws ConflictError when the email is taken (also when two sign-ups race). */
  createUser(user: NewUser): Promise<User>;
  userByEmail(email: string): Promise<UserWithPassword | null>;
  userById(id: string): Promise<User | null>;
  userWithPassword(id: string): Promise<UserWithPassword | null>;
  listUsers(): Promise<User[]>;
  /** One page of users, oldest first, and how many there are. */
  usersPage(limit: number, offset: number): Promise<{ users: User[]; total: number }>;
  /** Applies the patch (one transaction); null when there is no such user. */
  updateUser(id: string, patch: UserPatch, at: string): Promise<User | null>;
  removeUser(email: string): Promise<boolean>;
  /** Deletes the user with their sessions, keys, role assignments and usage. */
  deleteUser(id: string): Promise<boolean>;
  /**
   * Sets a password and ends the user's sessions (but `keep`'s); with `revokeKeys` (an
   * administrator's reset) every key of the user is revoked too. The number of sessions ended, or
   * null for an unknown user.
   */
  setPassword(
    id: string,
    password: NewUser['password'],
    keep: string | null,
    at: string,
    revokeKeys?: boolean,
  ): Promise<number | null>;
  /** Changes whenever this process changes or removes a user, session or key. */
  accountGeneration(): number;
  createSession(tokenHash: string, session: Session): Promise<void>;
  sessionByTokenHash(tokenHash: string): Promise<Session | null>;
  /** Sessions with their users, by token hash, in one query (unknown hashes are absent). */
  sessionsWithUsers(tokenHashes: string[]): Promise<Map<string, { session: Session; user: User }>>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Ends every session of the user; returns how many there were. */
  deleteSessions(userId: string): Promise<number>;
  createApiKey(key: Omit<ApiKey, 'revokedAt' | 'lastUsedAt'>, keyHash: string): Promise<ApiKey>;
  apiKeys(userId: string): Promise<ApiKey[]>;
  apiKeyByHash(keyHash: string): Promise<ApiKey | null>;
  /** Keys with their owners, by key hash, in one query (unknown hashes are absent). */
  apiKeysWithUsers(keyHashes: string[]): Promise<Map<string, { key: ApiKey; user: User }>>;
  /** Marks the key revoked, and every key made with it; false when the user has no such live key. */
  revokeApiKey(userId: string, id: string, at: string): Promise<boolean>;
  touchApiKey(id: string, at: string): Promise<void>;
  tiers(): Promise<Tier[]>;
  /** Changes a tier; null when there is no such tier. Bumps `accessGeneration`. */
  updateTier(name: string, patch: TierPatch, at: string): Promise<Tier | null>;
  scopes(): Promise<Scope[]>;
  endpointOverrides(): Promise<EndpointOverride[]>;
  createEndpointOverride(o: Omit<EndpointOverride, 'id'>): Promise<EndpointOverride>;
  /** Changes whenever this process changes tiers, scopes or overrides. */
  accessGeneration(): number;
  roles(): Promise<Role[]>;
  /** Assigns an admin role (idempotent). */
  assignRole(userId: string, role: string, assignedBy: string, at: string): Promise<void>;
  /** The user's live admin roles. */
  rolesOf(userId: string, at: string): Promise<string[]>;
  /** Adds counts (one transaction), merging entries of the same user, day and route. */
  addUsage(entries: UsageEntry[]): Promise<void>;
  /** A user's usage rows from `fromDay` (YYYY-MM-DD) on, oldest first. */
  usage(userId: string, fromDay: string): Promise<UsageEntry[]>;
}
