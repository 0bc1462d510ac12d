import Database from 'libsql';
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deployment, DeploymentStats, HealthCheck, Store } from './store.js';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

type Row = Record<string, unknown>;

/** libsql's `.get()`/`.all()` rows carry an extra `_metadata` key; rows here never do. */
function clean<T>(row: Row | undefined): T | undefined {
  if (!row) return undefined;
  const { _metadata: _ignored, ...rest } = row;
  return rest as T;
}

/** The numbered migrations shipped beside this file: `001-name.sql`, … */
export function listMigrations(dir = MIGRATIONS_DIR): { id: number; name: string; sql: string }[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: Number(f.slice(0, 3)), name: f, sql: readFileSync(join(dir, f), 'utf8') }));
}

/**
 * The SQLite store: the file is created on first open, put in WAL mode, and brought up to
 * date by applying each pending migration in its own transaction.
 */
export class SqliteStore implements Store {
  private readonly db: InstanceType<typeof Database>;

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.migrate();
  }

  private migrate(): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const applied = new Set(this.migrations());
    for (const m of listMigrations()) {
      if (applied.has(m.id)) continue;
      this.db.transaction(() => {
        this.db.exec(m.sql);
        this.db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, new Date().toISOString());
      })();
    }
  }

  migrations(): number[] {
    return this.db.prepare('SELECT id FROM schema_migrations ORDER BY id').all().map((r) => Number((r as Row).id));
  }

  recordDeployment(d: Omit<Deployment, 'id'>): Deployment {
    const info = this.db.prepare('INSERT INTO deployments (version, node_version, started_at) VALUES (?, ?, ?)').run(d.version, d.nodeVersion, d.startedAt);
    return { id: Number(info.lastInsertRowid), ...d };
  }

  deployments(limit: number): Deployment[] {
    return this.db
      .prepare('SELECT id, version, node_version AS nodeVersion, started_at AS startedAt FROM deployments ORDER BY id DESC LIMIT ?')
      .all(limit)
      .map((r) => clean<Deployment>(r as Row)!);
  }

  deploymentStats(): DeploymentStats {
    const total = Number(clean<{ n: number }>(this.db.prepare('SELECT COUNT(*) AS n FROM deployments').get() as Row)!.n);
    const versions = this.db
      .prepare(
        'SELECT version, COUNT(*) AS count, MIN(started_at) AS firstStartedAt, MAX(started_at) AS lastStartedAt FROM deployments GROUP BY version ORDER BY MAX(id) DESC',
      )
      .all()
      .map((r) => {
        const row = clean<DeploymentStats['versions'][number]>(r as Row)!;
        return { ...row, count: Number(row.count) };
      });
    return { total, versions };
  }

  recordHealth(check: HealthCheck): void {
    this.db.prepare('INSERT INTO health_checks (status, version, checked_at) VALUES (?, ?, ?)').run(check.status, check.version, check.checkedAt);
    this.db.prepare('DELETE FROM health_checks WHERE id <= (SELECT MAX(id) FROM health_checks) - 1000').run();
  }

  latestHealth(): HealthCheck | null {
    const row = this.db.prepare('SELECT status, version, checked_at AS checkedAt FROM health_checks ORDER BY id DESC LIMIT 1').get() as Row | undefined;
    return clean<HealthCheck>(row) ?? null;
  }

  smoke(at: string): void {
    this.db.transaction(() => {
      const id = this.db.prepare('INSERT INTO smoke (written_at) VALUES (?)').run(at).lastInsertRowid;
      const row = clean<{ written_at: string }>(this.db.prepare('SELECT written_at FROM smoke WHERE id = ?').get(id) as Row);
      if (row?.written_at !== at) throw new Error('read back a different value');
      this.db.prepare('DELETE FROM smoke WHERE id = ?').run(id);
    })();
  }

  close(): void {
    this.db.close();
  }
}
