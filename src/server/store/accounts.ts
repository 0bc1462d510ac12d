/** A local user as the store returns it: never with its password hash. */
export interface User {
  id: string;
  email: string;
  name: string | null;
  role: 'admin' | 'user';
  tier: string;
  banned: boolean;
  apiDisabled: boolean;
  createdAt: string;
}

export interface NewUser {
  email: string;
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

/** The account part of the store (users, sessions, API keys, tiers and roles). */
export interface AccountStore {
  createUser(user: NewUser): User;
  userByEmail(email: string): (User & { password: { hash: string; salt: string; iterations: number } }) | null;
  userById(id: string): User | null;
  listUsers(): User[];
  removeUser(email: string): boolean;
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
  roles(): Role[];
  /** Assigns an admin role (idempotent). */
  assignRole(userId: string, role: string, assignedBy: string, at: string): void;
  /** The user's live admin roles. */
  rolesOf(userId: string, at: string): string[];
}
