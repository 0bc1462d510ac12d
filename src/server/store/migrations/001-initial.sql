-- Deployments: one row per start of a server version.
CREATE TABLE deployments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  version TEXT NOT NULL,
  node_version TEXT NOT NULL,
  started_at TEXT NOT NULL
);
CREATE INDEX deployments_started_at ON deployments (started_at);

-- Health checks as computed by /api/health (at most one per 30 s).
CREATE TABLE health_checks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  status TEXT NOT NULL,
  version TEXT NOT NULL,
  checked_at TEXT NOT NULL
);

-- Scratch rows for /api/health/db-smoke.
CREATE TABLE smoke (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  written_at TEXT NOT NULL
);
