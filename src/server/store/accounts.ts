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

/** The account part of the store (users and sessions). */
export interface AccountStore {
  createUser(user: NewUser): User;
  userByEmail(email: string): (User & { password: { hash: string; salt: string; iterations: number } }) | null;
  userById(id: string): User | null;
  listUsers(): User[];
  removeUser(email: string): boolean;
  createSession(tokenHash: string, session: Session): void;
  sessionByTokenHash(tokenHash: string): Session | null;
  deleteSession(tokenHash: string): void;
}
