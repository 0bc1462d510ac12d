-- Local users. Passwords: PBKDF2-SHA256, per-user salt; the hash never leaves the store.
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  name TEXT,
  password_hash TEXT NOT NULL,
  password_salt TEXT NOT NULL,
  password_iterations INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'user')),
  tier TEXT NOT NULL,
  banned INTEGER NOT NULL DEFAULT 0,
  api_disabled INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);

-- Sessions: only the SHA-256 of the random token is kept.
CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
