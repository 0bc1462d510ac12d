-- Tiers, scopes, roles and endpoint overrides, as the specification's resources define them.
CREATE TABLE tiers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tier_name TEXT NOT NULL UNIQUE,
  order_rank INTEGER NOT NULL,
  rate_limit INTEGER NOT NULL,
  display_name TEXT NOT NULL,
  description TEXT NOT NULL,
  features TEXT NOT NULL,
  is_active INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO tiers (tier_name, order_rank, rate_limit, display_name, description, features) VALUES
  ('anonymous', 0, 10, 'Anonymous', 'No account', '{"maxSources":20,"maxBatch":10,"asyncCompile":false}'),
  ('free', 1, 60, 'Free', 'Signed-in users', '{"maxSources":20,"maxBatch":10,"asyncCompile":false}'),
  ('pro', 2, 300, 'Pro', 'Paying users', '{"maxSources":20,"maxBatch":10,"asyncCompile":true}'),
  ('admin', 3, 0, 'Admin', 'Operators; no rate limit', '{"maxSources":20,"maxBatch":10,"asyncCompile":true}');

CREATE TABLE scopes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  scope_name TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  description TEXT NOT NULL,
  required_tier TEXT NOT NULL REFERENCES tiers (tier_name),
  is_active INTEGER NOT NULL DEFAULT 1
);
INSERT INTO scopes (scope_name, display_name, description, required_tier) VALUES
  ('compile', 'Compile', 'Compile filter lists', 'free'),
  ('rules', 'Rules', 'Validate rules and walk syntax trees', 'free'),
  ('admin', 'Administration', 'Reach admin routes (with an admin role)', 'admin');

CREATE TABLE roles (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  role_name TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  description TEXT NOT NULL,
  permissions TEXT NOT NULL,
  is_active INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO roles (role_name, display_name, description, permissions) VALUES
  ('viewer', 'Viewer', 'Reads the admin system',
   '["admin:read","audit:read","metrics:read","config:read","users:read","flags:read"]'),
  ('editor', 'Editor', 'Reads and changes configuration and flags',
   '["admin:read","audit:read","metrics:read","config:read","users:read","flags:read","admin:write","config:write","flags:write"]'),
  ('super-admin', 'Super admin', 'Every permission',
   '["admin:read","audit:read","metrics:read","config:read","users:read","flags:read","admin:write","roles:write","roles:assign","config:write","flags:write","users:manage"]');

CREATE TABLE role_assignments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  identity_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role_name TEXT NOT NULL REFERENCES roles (role_name),
  assigned_by TEXT NOT NULL,
  assigned_at TEXT NOT NULL,
  expires_at TEXT,
  UNIQUE (identity_user_id, role_name)
);

CREATE TABLE endpoint_overrides (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path_pattern TEXT NOT NULL,
  method TEXT NOT NULL DEFAULT '*',
  required_tier TEXT REFERENCES tiers (tier_name),
  required_scopes TEXT,
  is_public INTEGER NOT NULL DEFAULT 0,
  is_active INTEGER NOT NULL DEFAULT 1
);
