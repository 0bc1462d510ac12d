import type { Kysely, Transaction } from 'kysely';
import type { Pool } from 'pg';
import type { Deployment, HealthCheck, Store } from './store.js';
import type { ApiKey, EndpointOverride, NewUser, Session, TierPatch, UsageEntry, UserPatch } from './accounts.js';
import type { Database } from './schema.js';
import type { Engine } from './migrations/columns.js';
import { appliedMigrations } from './migrate.js';
import { type BusyPolicy, DEFAULT_BUSY_POLICY, withRetries } from './failures.js';
import { memoryRateLimiter, postgresRateLimiter, type RateLimiter } from '../rate-limit.js';
import * as status from './queries/status.js';
import * as users from './queries/users.js';
import * as keys from './queries/keys.js';
import * as access from './queries/access.js';
import * as usage from './queries/usage.js';
import * as adminSystem from './queries/admin-system.js';
import * as bundles from './queries/bundle.js';
import * as configTables from './queries/config-tables.js';
import type { Assignment, AuditEntry, AuditFilter, StoredFlag } from './admin.js';
import type { Bundle, ConfigRecord, SectionName } from './config-sections.js';
import * as jobs from './queries/jobs.js';
import type { JobStore } from './jobs.js';
import { listenForJobs, signalJobs } from './job-signal.js';
import * as flash from './queries/flash.js';
import * as errorEvents from './queries/error-events.js';
import * as ruleSets from './queries/rule-sets.js';
import type { ErrorEvent, FlashEntry, RuleSet, RuleSetPatch } from './service-records.js';
import { DatabaseAdmin } from './database-admin.js';
import { LOG_BOUNDS } from './log-bounds.js';
import { prepareQueryConnection, type QueryConnection } from '../admin/postgres-query-role.js';
import { QueryGate } from '../admin/query-gate.js';
import type { StoreLocation } from './location.js';

const withoutPassword = <T extends { password: unknown }>(u: T | null) => {
  if (!u) return null;
  const { password: _hash, ...user } = u;
  return user;
};

/**
 * The store over kysely, one class for both engines; the queries live in `queries/`, one module
 * per group of tables. Each call is one statement or one transaction: one that fails is rolled
 * back whole, and one that meets a busy database is tried again after a pause (never blocking
 * the event loop) until `busy.budgetMs`, then fails with StoreUnavailableError (503 and
 * `Retry-After` at the server). A duplicate unique value fails with ConflictError (409).
 */
export class KyselyStore implements Store {
  private accounts = 0;
  private generation = 0;
  private readonly limiters = new Map<string, RateLimiter>();
  private queries: Promise<QueryConnection> | null = null;
  /** Writes of each bounded log by this process: every `LOG_BOUNDS.pruneEvery`th prunes it. */
  private readonly logWrites = { success: 0, refusal: 0, errorEvents: 0 };

  constructor(
    private readonly db: Kysely<Database>,
    readonly engine: Engine,
    readonly description: string,
    private readonly pool: Pool | null,
    private readonly busy: BusyPolicy = DEFAULT_BUSY_POLICY,
    /** Where the store is: the admin database view's read-only queries open it again. */
    private readonly location: StoreLocation | null = null,
  ) {}

  /** Since a write met a busy database, until a write transaction succeeds (`/api/health` says degraded). */
  private writesFailing = false;
  private readonly onBusy = () => {
    this.writesFailing = true;
  };

  private run<T>(query: (db: Kysely<Database>) => Promise<T>, conflict?: string): Promise<T> {
    return withRetries(() => query(this.db), this.busy, conflict, this.onBusy);
  }

  private transaction<T>(work: (trx: Transaction<Database>) => Promise<T>, readOnly = false, conflict?: string) {
    const trx = this.db.transaction();
    const attempt = async () => {
      const result = await (readOnly ? trx.setAccessMode('read only') : trx).execute(work);
      if (!readOnly) this.writesFailing = false;
      return result;
    };
    return withRetries(attempt, this.busy, conflict, this.onBusy);
  }

  writesOk = () => !this.writesFailing;
  probeWrites = async () => {
    if (this.writesFailing)
      await this.db
        .transaction()
        .execute(async () => undefined)
        .then(
          () => {
            this.writesFailing = false;
          },
          () => undefined,
        );
    return !this.writesFailing;
  };

  /** Runs a change to accounts; cached identities of this process are dropped after it. */
  private async changingAccounts<T>(change: Promise<T>): Promise<T> {
    try {
      return await change;
    } finally {
      this.accounts += 1;
    }
  }

  private async changingAccess<T>(change: Promise<T>): Promise<T> {
    try {
      return await change;
    } finally {
      this.generation += 1;
    }
  }

  migrations = () => this.run(appliedMigrations);
  recordDeployment = (d: Omit<Deployment, 'id'>) => this.run((db) => status.recordDeployment(db, d));
  deployments = (limit: number) => this.run((db) => status.deployments(db, limit));
  deploymentStats = () => this.transaction(status.deploymentStats, true);
  recordHealth = (check: HealthCheck) => this.transaction((trx) => status.recordHealth(trx, check));
  latestHealth = () => this.run(status.latestHealth);
  smoke = (at: string) => this.transaction((trx) => status.smoke(trx, at));

  createUser = (user: NewUser) =>
    this.run((db) => users.createUser(db, user), `An account with the identifier ${user.email} already exists`);
  userByEmail = (email: string) => this.run((db) => users.userWhere(db, 'email', email));
  userWithPassword = (id: string) => this.run((db) => users.userWhere(db, 'id', id));
  userById = async (id: string) => withoutPassword(await this.userWithPassword(id));
  listUsers = () => this.run((db) => users.listUsers(db));
  usersPage = (limit: number, offset: number) =>
    this.transaction(
      async (trx) => ({ users: await users.listUsers(trx, { limit, offset }), total: await users.countUsers(trx) }),
      true,
    );
  updateUser = (id: string, patch: UserPatch, at: string) =>
    this.changingAccounts(this.transaction((trx) => users.updateUser(trx, id, patch, at)));
  removeUser = (email: string) => this.changingAccounts(this.run((db) => users.deleteUserWhere(db, 'email', email)));
  deleteUser = (id: string) => this.changingAccounts(this.run((db) => users.deleteUserWhere(db, 'id', id)));
  setPassword = (id: string, password: NewUser['password'], keep: string | null, at: string, revokeKeys = false) =>
    this.changingAccounts(this.transaction((trx) => users.setPassword(trx, id, password, keep, at, revokeKeys)));
  accountGeneration = () => this.accounts;

  createSession = (tokenHash: string, session: Session) =>
    this.run((db) => users.createSession(db, tokenHash, session));
  sessionByTokenHash = (tokenHash: string) => this.run((db) => users.sessionByTokenHash(db, tokenHash));
  sessionsWithUsers = (tokenHashes: string[]) => this.run((db) => users.sessionsWithUsers(db, tokenHashes));
  deleteSession = async (tokenHash: string) => {
    await this.changingAccounts(this.run((db) => users.deleteSessions(db, { tokenHash })));
  };
  deleteSessions = (userId: string) => this.changingAccounts(this.run((db) => users.deleteSessions(db, { userId })));

  createApiKey = (key: Omit<ApiKey, 'revokedAt' | 'lastUsedAt'>, keyHash: string) =>
    this.transaction((trx) => keys.createApiKey(trx, key, keyHash, this.engine), false, 'That key already exists');
  apiKeys = (userId: string) => this.run((db) => keys.apiKeys(db, userId));
  apiKeyByHash = (keyHash: string) => this.run((db) => keys.apiKeyByHash(db, keyHash));
  apiKeysWithUsers = (keyHashes: string[]) => this.run((db) => keys.apiKeysWithUsers(db, keyHashes));
  revokeApiKey = (userId: string, id: string, at: string) =>
    this.changingAccounts(this.transaction((trx) => keys.revokeApiKey(trx, userId, id, at)));
  touchApiKey = (id: string, at: string) => this.run((db) => keys.touchApiKey(db, id, at));

  tiers = () => this.run(access.tiers);
  updateTier = (name: string, patch: TierPatch, at: string) =>
    this.changingAccess(this.transaction((trx) => access.updateTier(trx, name, patch, at)));
  scopes = () => this.run(access.scopes);
  endpointOverrides = () => this.run(access.endpointOverrides);
  createEndpointOverride = (o: Omit<EndpointOverride, 'id'>) =>
    this.changingAccess(this.run((db) => access.createEndpointOverride(db, o)));
  accessGeneration = () => this.generation;
  roles = () => this.run(access.roles);
  assignRole = (userId: string, role: string, assignedBy: string, at: string) =>
    this.run((db) => access.assignRole(db, userId, role, assignedBy, at));
  rolesOf = (userId: string, at: string) => this.run((db) => access.rolesOf(db, userId, at));

  addUsage = async (entries: UsageEntry[]) => {
    if (entries.length > 0) await this.transaction((trx) => usage.addUsage(trx, entries));
  };
  usage = (userId: string, fromDay: string) => this.run((db) => usage.usage(db, userId, fromDay));

  configRows = (section: SectionName, where: Record<string, unknown> = {}) =>
    this.run((db) => configTables.listRows(db, section, where));
  createConfigRow = (section: SectionName, values: ConfigRecord, at: string) =>
    this.changingAccess(
      this.run((db) => configTables.insertRow(db, section, values, at), `That ${section} entry already exists`),
    );
  updateConfigRow = (section: SectionName, where: Record<string, unknown>, patch: ConfigRecord, at: string) =>
    this.changingAccess(this.transaction((trx) => configTables.updateRow(trx, section, where, patch, at)));
  deleteConfigRow = (section: SectionName, where: Record<string, unknown>) =>
    this.changingAccess(
      this.transaction(async (trx) => {
        if (section === 'roles' && typeof where.id === 'number')
          await trx
            .deleteFrom('role_assignments')
            .where('role_name', 'in', trx.selectFrom('roles').select('role_name').where('id', '=', where.id))
            .execute();
        return configTables.deleteRow(trx, section, where);
      }),
    );

  assignments = (filter: { identity_user_id?: string; role_name?: string }) =>
    this.run((db) => adminSystem.assignments(db, filter));
  assign = (a: Omit<Assignment, 'id'>) => this.transaction((trx) => adminSystem.assign(trx, a));
  revoke = (userId: string, role: string) => this.transaction((trx) => adminSystem.revoke(trx, userId, role));
  appendAudit = async (entry: AuditEntry) => {
    await this.transaction((trx) => adminSystem.appendAudit(trx, entry));
    // Each class is pruned by its own writes only (log-bounds.ts).
    const kind: adminSystem.AuditClass = entry.status === 'success' ? 'success' : 'refusal';
    if (this.logWrites[kind]++ % LOG_BOUNDS.pruneEvery === 0) {
      const { retentionDays, maxRows } = kind === 'success' ? LOG_BOUNDS.audit : LOG_BOUNDS.auditRefusals;
      const before = new Date(Date.parse(entry.created_at) - retentionDays * 86_400_000).toISOString();
      await this.run((db) => adminSystem.pruneAudit(db, kind, before, maxRows));
    }
  };
  audit = (filter: AuditFilter, limit: number, offset: number) =>
    this.transaction((trx) => adminSystem.audit(trx, filter, limit, offset), true);
  auditOfUser = (userId: string, limit: number) =>
    this.transaction((trx) => adminSystem.auditOfUser(trx, userId, limit), true);
  flags = () => this.run(adminSystem.flags);
  flag = (key: string) => this.run((db) => adminSystem.flag(db, key));
  putFlag = (flag: StoredFlag) => this.run((db) => adminSystem.putFlag(db, flag));
  deleteFlag = (key: string) => this.run((db) => adminSystem.deleteFlag(db, key));
  groupMemberships = (userId: string) => this.run((db) => adminSystem.groupMemberships(db, userId));
  addGroupMember = (group: string, userId: string, at: string) =>
    this.run((db) => adminSystem.addGroupMember(db, group, userId, at));
  eraseAdminData = (userId: string) => this.transaction((trx) => adminSystem.eraseAdminData(trx, userId));

  configBundle = () => this.transaction(bundles.readBundle, true);
  applyBundle = (bundle: Bundle, o: { by: string; reason: string; replace: boolean; at: string }) =>
    this.changingAccess(
      this.transaction(async (trx) => {
        const snapshotId = await bundles.createSnapshot(trx, o.by, o.reason, await bundles.readBundle(trx), o.at);
        const applied = await bundles.writeBundle(trx, this.engine, bundle, o.replace, o.at);
        return { snapshotId, applied };
      }),
    );
  snapshots = () => this.run(bundles.snapshots);
  snapshot = (id: number) => this.run((db) => bundles.snapshot(db, id));

  putFlash = (entry: FlashEntry) => this.transaction((trx) => flash.putFlash(trx, entry));
  takeFlash = (token: string, now: string) => this.run((db) => flash.takeFlash(db, token, now));
  addErrorEvent = async (event: ErrorEvent) => {
    await this.run((db) => errorEvents.addErrorEvent(db, event));
    if (this.logWrites.errorEvents++ % LOG_BOUNDS.pruneEvery === 0) {
      const { retentionDays, maxRows } = LOG_BOUNDS.errorEvents;
      const before = new Date(Date.parse(event.createdAt) - retentionDays * 86_400_000).toISOString();
      await this.run((db) => errorEvents.pruneErrorEvents(db, before, maxRows));
    }
  };
  errorEvents = (limit: number, offset: number) =>
    this.transaction((trx) => errorEvents.errorEvents(trx, limit, offset), true);
  createRuleSet = (ruleSet: RuleSet) => this.run((db) => ruleSets.createRuleSet(db, ruleSet));
  ruleSets = (ownerId: string | null, limit: number, offset: number) =>
    this.transaction((trx) => ruleSets.ruleSets(trx, ownerId, limit, offset), true);
  ruleSet = (id: string) => this.run((db) => ruleSets.ruleSet(db, id));
  updateRuleSet = (id: string, ownerId: string, patch: RuleSetPatch, at: string) =>
    this.transaction((trx) => ruleSets.updateRuleSet(trx, id, ownerId, patch, at));
  deleteRuleSet = (id: string, ownerId: string) => this.run((db) => ruleSets.deleteRuleSet(db, id, ownerId));

  private readonly queryGate = new QueryGate();

  databaseAdmin = () =>
    new DatabaseAdmin(
      this.db,
      this.engine,
      this.location,
      this.description,
      () => this.queryConnection(),
      (work) => withRetries(work, this.busy),
      this.queryGate,
    );

  /** PostgreSQL: the query route's own low-privilege connection, prepared once (postgres-query-role.ts). */
  prepareQueries(queryUrl?: string): Promise<string | null> {
    if (!this.pool || this.location?.engine !== 'postgres') return Promise.resolve(null);
    this.queries ??= prepareQueryConnection(this.pool, this.location.url, queryUrl);
    return this.queries.then((q) => q.refusal);
  }

  private async queryConnection(): Promise<QueryConnection> {
    await this.prepareQueries();
    return (await this.queries) ?? { pool: null, role: null, stop: null, refusal: 'not a PostgreSQL store' };
  }

  rateLimiter(name: string): RateLimiter {
    let limiter = this.limiters.get(name);
    if (!limiter) {
      limiter = this.pool ? postgresRateLimiter(this.pool, name) : memoryRateLimiter(name);
      this.limiters.set(name, limiter);
    }
    return limiter;
  }

  readonly jobs: JobStore = {
    enqueue: (job) =>
      this.transaction(async (trx) => {
        await jobs.enqueue(trx, job);
        if (this.engine === 'postgres') await signalJobs(trx);
      }),
    listen: (onJob, log) =>
      this.location?.engine === 'postgres'
        ? listenForJobs(this.location.url, onJob, log)
        : Promise.resolve(() => Promise.resolve()),
    job: (id) => this.run((db) => jobs.job(db, id)),
    claim: (lease, now) => this.run((db) => jobs.claim(db, lease, now)),
    renew: (ids, lease) => this.run((db) => jobs.renew(db, ids, lease)),
    finish: (id, owner, end) => this.transaction((trx) => jobs.finish(trx, id, owner, end)),
    release: (ids, owner) =>
      this.transaction(async (trx) => {
        await jobs.release(trx, ids, owner);
        if (this.engine === 'postgres' && ids.length > 0) await signalJobs(trx);
      }),
    cancel: (id, ownerId, at) => this.run((db) => jobs.cancel(db, id, ownerId, at)),
    history: (ownerId, limit, offset) => this.transaction((trx) => jobs.history(trx, ownerId, limit, offset), true),
    counts: (since) => this.transaction((trx) => jobs.counts(trx, since), true),
    sweep: (before) => this.transaction((trx) => jobs.sweep(trx, before)),
    steps: (jobId) => this.run((db) => jobs.steps(db, jobId)),
    startStep: (jobId, index, name, at) => this.run((db) => jobs.startStep(db, jobId, index, name, at)),
    endStep: (jobId, index, end) => this.run((db) => jobs.endStep(db, jobId, index, end)),
  };

  close = async () => {
    const queries = await this.queries?.catch(() => null);
    await queries?.pool?.end().catch(() => undefined);
    await this.db.destroy();
  };
}
