import Database from 'libsql';
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import type { Deployment, DeploymentStats, HealthCheck, Store } from './store.js';
import type { ApiKey, EndpointOverride, NewUser, Role, Scope, Session, Tier, TierPatch, UsageEntry, User, UserPatch } from './accounts.js';

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
  private readonly statements = new Map<string, Database.Statement<unknown[]>>();
  private generation = 0;
  private accounts = 0;

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // WAL with NORMAL: a commit survives a crash of the process; only a power loss can drop the
    // last ones. FULL would wait for the disk on every commit.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.migrate();
  }

  /** A prepared statement, compiled once per SQL text (the request paths run a few per call). */
  private stmt(sql: string): Database.Statement<unknown[]> {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare<unknown[]>(sql);
      this.statements.set(sql, s);
    }
    return s;
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

  createUser(user: NewUser): User {
    const at = new Date().toISOString();
    const id = randomUUID();
    this.stmt(
      `INSERT INTO users (id, email, identifier_type, name, password_hash, password_salt, password_iterations, role, tier, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, user.email, user.identifierType ?? 'email', user.name ?? null, user.password.hash, user.password.salt, user.password.iterations, user.role, user.tier, at, at);
    return this.userById(id)!;
  }

  private static toUser(r: Row): User {
    return {
      id: String(r.id),
      email: String(r.email),
      identifierType: r.identifier_type === 'phone' ? 'phone' : 'email',
      name: (r.name as string | null) ?? null,
      role: r.role as User['role'],
      tier: String(r.tier),
      banned: Number(r.banned) === 1,
      banReason: (r.ban_reason as string | null) ?? null,
      apiDisabled: Number(r.api_disabled) === 1,
      createdAt: String(r.created_at),
      updatedAt: String(r.updated_at ?? r.created_at),
    };
  }

  userByEmail(email: string) {
    const r = this.stmt('SELECT * FROM users WHERE email = ?').get(email) as Row | undefined;
    if (!r) return null;
    return {
      ...SqliteStore.toUser(r),
      password: { hash: String(r.password_hash), salt: String(r.password_salt), iterations: Number(r.password_iterations) },
    };
  }

  userById(id: string): User | null {
    const r = this.stmt('SELECT * FROM users WHERE id = ?').get(id) as Row | undefined;
    return r ? SqliteStore.toUser(r) : null;
  }

  listUsers(): User[] {
    return this.stmt('SELECT * FROM users ORDER BY created_at, email').all().map((r) => SqliteStore.toUser(r as Row));
  }

  usersPage(limit: number, offset: number): { users: User[]; total: number } {
    return this.db.transaction(() => ({
      users: this.stmt('SELECT * FROM users ORDER BY created_at, email LIMIT ? OFFSET ?').all(limit, offset).map((r) => SqliteStore.toUser(r as Row)),
      total: Number((this.stmt('SELECT COUNT(*) AS n FROM users').get() as Row).n),
    }))();
  }

  updateUser(id: string, patch: UserPatch, at: string): User | null {
    return this.db.transaction(() => {
      const current = this.userById(id);
      if (!current) return null;
      const banned = patch.banned ?? current.banned;
      this.stmt(
        `UPDATE users SET role = @role, tier = @tier, api_disabled = @apiDisabled, updated_at = @at,
           banned_at = CASE WHEN @banned = 0 THEN NULL WHEN banned = 1 THEN banned_at ELSE @at END,
           ban_reason = CASE WHEN @banned = 0 THEN NULL WHEN @setReason = 1 THEN @reason ELSE ban_reason END,
           banned = @banned
         WHERE id = @id`,
      ).run({
        id,
        at,
        role: patch.role ?? current.role,
        tier: patch.tier ?? current.tier,
        apiDisabled: (patch.apiDisabled ?? current.apiDisabled) ? 1 : 0,
        banned: banned ? 1 : 0,
        setReason: patch.banReason !== undefined ? 1 : 0,
        reason: patch.banReason ?? null,
      });
      // A ban ends every session at once; keys stay but no longer act (their owner is banned).
      if (banned && !current.banned) this.stmt('DELETE FROM sessions WHERE user_id = ?').run(id);
      this.accounts += 1;
      return this.userById(id);
    })();
  }

  removeUser(email: string): boolean {
    this.accounts += 1;
    return this.stmt('DELETE FROM users WHERE email = ?').run(email).changes > 0;
  }

  deleteUser(id: string): boolean {
    this.accounts += 1;
    return this.stmt('DELETE FROM users WHERE id = ?').run(id).changes > 0;
  }

  createSession(tokenHash: string, session: Session): void {
    this.stmt('INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)').run(tokenHash, session.userId, session.createdAt, session.expiresAt);
  }

  sessionByTokenHash(tokenHash: string): Session | null {
    const r = this.stmt('SELECT user_id, created_at, expires_at FROM sessions WHERE token_hash = ?').get(tokenHash) as Row | undefined;
    return r ? { userId: String(r.user_id), createdAt: String(r.created_at), expiresAt: String(r.expires_at) } : null;
  }

  deleteSession(tokenHash: string): void {
    this.stmt('DELETE FROM sessions WHERE token_hash = ?').run(tokenHash);
    this.accounts += 1;
  }

  private static toApiKey(r: Row): ApiKey {
    return {
      id: String(r.id),
      userId: String(r.user_id),
      name: String(r.name),
      prefix: String(r.prefix),
      scopes: JSON.parse(String(r.scopes)) as string[],
      createdAt: String(r.created_at),
      expiresAt: (r.expires_at as string | null) ?? null,
      revokedAt: (r.revoked_at as string | null) ?? null,
      lastUsedAt: (r.last_used_at as string | null) ?? null,
    };
  }

  createApiKey(key: Omit<ApiKey, 'revokedAt' | 'lastUsedAt'>, keyHash: string): ApiKey {
    this.db
      .prepare('INSERT INTO api_keys (id, user_id, name, prefix, key_hash, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(key.id, key.userId, key.name, key.prefix, keyHash, JSON.stringify(key.scopes), key.createdAt, key.expiresAt);
    return { ...key, revokedAt: null, lastUsedAt: null };
  }

  apiKeys(userId: string): ApiKey[] {
    return this.db.prepare('SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at, id').all(userId).map((r) => SqliteStore.toApiKey(r as Row));
  }

  apiKeyByHash(keyHash: string): ApiKey | null {
    const r = this.stmt('SELECT * FROM api_keys WHERE key_hash = ?').get(keyHash) as Row | undefined;
    return r ? SqliteStore.toApiKey(r) : null;
  }

  revokeApiKey(userId: string, id: string, at: string): boolean {
    this.accounts += 1;
    return this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL').run(at, id, userId).changes > 0;
  }

  touchApiKey(id: string, at: string): void {
    this.stmt('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at, id);
  }

  private static toTier(row: Row): Tier {
    return { name: String(row.tier_name), orderRank: Number(row.order_rank), rateLimit: Number(row.rate_limit), features: JSON.parse(String(row.features)) };
  }

  tiers(): Tier[] {
    return this.stmt('SELECT tier_name, order_rank, rate_limit, features FROM tiers WHERE is_active = 1 ORDER BY order_rank')
      .all()
      .map((r) => SqliteStore.toTier(r as Row));
  }

  updateTier(name: string, patch: TierPatch, at: string): Tier | null {
    const row = this.db.transaction(() => {
      const changed = this.stmt(
        `UPDATE tiers SET rate_limit = COALESCE(?, rate_limit), features = COALESCE(?, features), is_active = COALESCE(?, is_active), updated_at = ?
         WHERE tier_name = ?`,
      ).run(patch.rateLimit ?? null, patch.features ? JSON.stringify(patch.features) : null, patch.isActive === undefined ? null : patch.isActive ? 1 : 0, at, name).changes;
      return changed ? (this.stmt('SELECT tier_name, order_rank, rate_limit, features FROM tiers WHERE tier_name = ?').get(name) as Row) : undefined;
    })();
    this.generation += 1;
    return row ? SqliteStore.toTier(row) : null;
  }

  scopes(): Scope[] {
    return this.stmt('SELECT scope_name, required_tier FROM scopes WHERE is_active = 1 ORDER BY id')
      .all()
      .map((r) => ({ name: String((r as Row).scope_name), requiredTier: String((r as Row).required_tier) }));
  }

  private static toOverride(row: Row): EndpointOverride {
    return {
      id: Number(row.id),
      pathPattern: String(row.path_pattern),
      method: String(row.method),
      requiredTier: (row.required_tier as string | null) ?? null,
      requiredScopes: row.required_scopes == null ? null : (JSON.parse(String(row.required_scopes)) as string[]),
      isPublic: Number(row.is_public) === 1,
    };
  }

  endpointOverrides(): EndpointOverride[] {
    return this.stmt('SELECT * FROM endpoint_overrides WHERE is_active = 1 ORDER BY id')
      .all()
      .map((r) => SqliteStore.toOverride(r as Row));
  }

  createEndpointOverride(o: Omit<EndpointOverride, 'id'>): EndpointOverride {
    const info = this.stmt('INSERT INTO endpoint_overrides (path_pattern, method, required_tier, required_scopes, is_public) VALUES (?, ?, ?, ?, ?)').run(
      o.pathPattern,
      o.method,
      o.requiredTier,
      o.requiredScopes === null ? null : JSON.stringify(o.requiredScopes),
      o.isPublic ? 1 : 0,
    );
    this.generation += 1;
    return { id: Number(info.lastInsertRowid), ...o };
  }

  accountGeneration(): number {
    return this.accounts;
  }

  accessGeneration(): number {
    return this.generation;
  }

  roles(): Role[] {
    return this.db
      .prepare('SELECT role_name, permissions FROM roles WHERE is_active = 1 ORDER BY id')
      .all()
      .map((r) => ({ name: String((r as Row).role_name), permissions: JSON.parse(String((r as Row).permissions)) as string[] }));
  }

  assignRole(userId: string, role: string, assignedBy: string, at: string): void {
    this.db
      .prepare('INSERT OR IGNORE INTO role_assignments (identity_user_id, role_name, assigned_by, assigned_at) VALUES (?, ?, ?, ?)')
      .run(userId, role, assignedBy, at);
  }

  rolesOf(userId: string, at: string): string[] {
    return this.stmt('SELECT role_name FROM role_assignments WHERE identity_user_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY id')
      .all(userId, at)
      .map((r) => String((r as Row).role_name));
  }

  addUsage(entries: UsageEntry[]): void {
    if (entries.length === 0) return;
    const upsert = this.stmt(
      `INSERT INTO usage_daily (user_id, day, route, count, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id, day, route) DO UPDATE SET count = count + excluded.count,
         first_seen = MIN(first_seen, excluded.first_seen), last_seen = MAX(last_seen, excluded.last_seen)`,
    );
    this.db.transaction(() => {
      // A user deleted since the requests were counted has nothing left to count against.
      for (const e of entries) if (this.stmt('SELECT 1 FROM users WHERE id = ?').get(e.userId)) upsert.run(e.userId, e.day, e.route, e.count, e.firstSeen, e.lastSeen);
    })();
  }

  usage(userId: string, fromDay: string): UsageEntry[] {
    return this.stmt('SELECT * FROM usage_daily WHERE user_id = ? AND day >= ? ORDER BY day, route')
      .all(userId, fromDay)
      .map((r) => {
        const row = r as Row;
        return { userId: String(row.user_id), day: String(row.day), route: String(row.route), count: Number(row.count), firstSeen: String(row.first_seen), lastSeen: String(row.last_seen) };
      });
  }

  close(): void {
    this.db.close();
  }
}
