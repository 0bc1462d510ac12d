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

/** The account part of the store (users, sessions, API keys, tiers and roles). */
export interface AccountStore {
  createUser(user: NewUser): User;
  userByEmail(email: string): (User & { password: { hash: string; salt: string; iterations: number } }) | null;
  userById(id: string): User | null;
  listUsers(): User[];
  /** One page of users, oldest first, and how many there are. */
  usersPage(limit: number, offset: number): { users: User[]; total: number };
  /** Applies the patch (one transaction); null when there is no such user. */
  updateUser(id: string, patch: UserPatch, at: string): User | null;
  removeUser(email: string): boolean;
  /** Deletes the user with their sessions, keys, role assignments and usage. */
  deleteUser(id: string): boolean;
  /** Changes whenever a user, session or key is changed or removed through this store. */
  accountGeneration(): number;
  createSession(tokenHash: string, session: Session): void;
  sessionByTokenHash(tokenHash: string): Session | null;
  deleteSession(tokenHash: string): void;
  createApiKey(key: Omit<ApiKey, 'revokedAt' | 'lastUsedAt'>, keyHash: string): ApiKey;
  apiKeys(userId: string): ApiKey[];
  apiKeyByHash(keyHash: string): ApiKey | null;
  /** Marks the key revoked; false when the user has no such live key. */
  revokeApiKey(userId: string, id: string, at: string): boolean;
  touchApiKey(id: string, at: string): void;
  tiers(): Tier[];
  /** Changes a tier; null when there is no such tier. Bumps `accessGeneration`. */
  updateTier(name: string, patch: TierPatch, at: string): Tier | null;
  scopes(): Scope[];
  endpointOverrides(): EndpointOverride[];
  createEndpointOverride(o: Omit<EndpointOverride, 'id'>): EndpointOverride;
  /** Changes whenever tiers, scopes or overrides change through this store. */
  accessGeneration(): number;
  roles(): Role[];
  /** Assigns an admin role (idempotent). */
  assignRole(userId: string, role: string, assignedBy: string, at: string): void;
  /** The user's live admin roles. */
  rolesOf(userId: string, at: string): string[];
  /** Adds counts (one transaction), merging entries of the same user, day and route. */
  addUsage(entries: UsageEntry[]): void;
  /** A user's usage rows from `fromDay` (YYYY-MM-DD) on, oldest first. */
  usage(userId: string, fromDay: string): UsageEntry[];
}
