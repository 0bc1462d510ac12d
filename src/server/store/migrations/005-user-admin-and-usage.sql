-- Local users as the admin routes manage them: an identifier type (email or phone), when the row
-- last changed, and bans with their reason.
ALTER TABLE users ADD COLUMN identifier_type TEXT NOT NULL DEFAULT 'email';
ALTER TABLE users ADD COLUMN updated_at TEXT;
ALTER TABLE users ADD COLUMN banned_at TEXT;
ALTER TABLE users ADD COLUMN ban_reason TEXT;
UPDATE users SET updated_at = created_at;

-- Requests per user, UTC day and route pattern (e.g. "POST /api/compile").
CREATE TABLE usage_daily (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  day TEXT NOT NULL,
  route TEXT NOT NULL,
  count INTEGER NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen TEXT NOT NULL,
  PRIMARY KEY (user_id, day, route)
) WITHOUT ROWID;
