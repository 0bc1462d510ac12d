import type { Kysely, Transaction } from 'kysely';
import type { Pool } from 'pg';
import type { ApiKey, UsageEntry } from './accounts.js';
import type { Database } from './schema.js';
import type { Engine } from './migrations/columns.js';
import { type BusyPolicy, withRetries } from './failures.js';
import { memoryRateLimiter, postgresRateLimiter, type RateLimiter } from '../rate-limit.js';
import type { Db } from './queries/db.js';
import * as status from './queries/status.js';
import * as users from './queries/users.js';
import * as keys from './queries/keys.js';
import * as access from './queries/access.js';
import * as usage from './queries/usage.js';
import * as adminSystem from './queries/admin-system.js';
import * as bundles from './queries/bundle.js';
import * as configTables from './queries/config-tables.js';
import type { AuditEntry } from './admin.js';
import type { Bundle, SectionName } from './config-sections.js';
import * as jobs from './queries/jobs.js';
import { listenForJobs } from './job-signal.js';
import * as flash from './queries/flash.js';
import * as errorEvents from './queries/error-events.js';
import * as ruleSets from './queries/rule-sets.js';
import type { ErrorEvent } from './service-records.js';
import { DatabaseAdmin } from './database-admin.js';
import { LOG_BOUNDS } from './log-bounds.js';
import { prepareQueryConnection, type QueryConnection } from '../admin/postgres-query-role.js';
import { QueryGate } from '../admin/query-gate.js';
import type { StoreLocation } from './location.js';

/**
 * The store over kysely, one class for both engines; the queries live in `queries/`, one module
 * per group of tables. Each call is one statement or one transaction: one that fails is rolled
 * back whole, and one that meets a busy database is tried again after a pause (never blocking
 * the event loop) until `busy.budgetMs`, then fails with StoreUnavailableError (503 and
 * `Retry-After` at the server). A duplicate unique value fails with ConflictError (409).
 * The server uses it as `Store` (store.ts): its public members only.
 */
export class KyselyStore {
  /** This process's counters of changes to accounts and to what the access gate reads. */
  private readonly generations = { accounts: 0, access: 0 };
  private readonly limiters = new Map<string, RateLimiter>();
  private queries: Promise<QueryConnection> | null = null;
  /** Writes of each bounded log by this process: every `LOG_BOUNDS.pruneEvery`th prunes it. */
  private readonly logWrites = { success: 0, refusal: 0, errorEvents: 0 };

  constructor(
    private readonly db: Kysely<Database>,
    readonly engine: Engine,
    /** The engine and where, for logs and settings; never a password. */
    readonly description: string,
    private readonly pool: Pool | null,
    private readonly busy: BusyPolicy,
    /** Where the store is: the admin database view's read-only queries open it again. */
    private readonly location: StoreLocation,
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

  /**
   * A store call of `query`: one statement, or one write or read-only transaction (`tx`); with
   * `bumps`, the generation it names counts up after it (cached identities or access rules of this
   * process are then read again); `conflict` says what a duplicate unique value was.
   */
  private call<A extends unknown[], R>(
    query: (db: Db, ...args: A) => Promise<R>,
    how: { tx?: 'write' | 'read'; bumps?: 'accounts' | 'access'; conflict?: (...args: A) => string } = {},
  ) {
    return (...args: A): Promise<R> => {
      const conflict = how.conflict?.(...args);
      const done = how.tx
        ? this.transaction((trx) => query(trx, ...args), how.tx === 'read', conflict)
        : this.run((db) => query(db, ...args), conflict);
      const { bumps } = how;
      // The generation counts up once the call is over, whether it succeeded or not.
      return bumps ? done.finally(() => this.generations[bumps]++) : done;
    };
  }

  /** False since a write met a busy database (another process holds the lock), until a write succeeds. */
  writesOk = () => !this.writesFailing;
  /** While writes fail, tries an empty write transaction once (no retries); resolves to `writesOk()`. */
  probeWrites = async () => {
    const written =
      this.writesFailing &&
      (await this.db
        .transaction()
        .execute(async () => true)
        .catch(() => false));
    if (written) this.writesFailing = false;
    return !this.writesFailing;
  };

  recordDeployment = this.call(status.recordDeployment);
  deployments = this.call(status.deployments);
  deploymentStats = this.call(status.deploymentStats);
  recordHealth = this.call(status.recordHealth, { tx: 'write' });
  latestHealth = this.call(status.latestHealth);
  /** Writes, reads back and deletes a row in one transaction; throws when the store cannot. */
  smoke = this.call(status.smoke, { tx: 'write' });

  /** Throws ConflictError when the email is taken (also when two sign-ups race). */
  createUser = this.call(users.createUser, {
    conflict: (user) => `An account with the identifier ${user.email} already exists`,
  });
  /** With the password hash, for sign-in and password changes only. */
  userByEmail = (email: string) => this.run((db) => users.userWhere(db, 'email', email));
  /** With the password hash, for sign-in and password changes only. */
  userWithPassword = (id: string) => this.run((db) => users.userWhere(db, 'id', id));
  userById = this.call(users.userById);
  listUsers = () => this.run((db) => users.listUsers(db));
  /** One page of users, oldest first, and how many there are. */
  usersPage = this.call(users.usersPage, { tx: 'read' });
  /** Applies the patch (one transaction); null when there is no such user. */
  updateUser = this.call(users.updateUser, { tx: 'write', bumps: 'accounts' });
  removeUser = this.call((db, email: string) => users.deleteUserWhere(db, 'email', email), { bumps: 'accounts' });
  /** Deletes the user with their sessions, keys, role assignments and usage. */
  deleteUser = this.call((db, id: string) => users.deleteUserWhere(db, 'id', id), { bumps: 'accounts' });
  /**
   * Sets a password and ends the user's sessions (but `keep`'s); with `revokeKeys` (an
   * administrator's reset) every key of the user is revoked too. The number of sessions ended, or
   * null for an unknown user.
   */
  setPassword = this.call(users.setPassword, { tx: 'write', bumps: 'accounts' });
  /** Changes whenever this process changes or removes a user, session or key. */
  accountGeneration = () => this.generations.accounts;

  createSession = this.call(users.createSession);
  /** Sessions with their users, by token hash, in one query (unknown hashes are absent). */
  sessionsWithUsers = this.call(users.sessionsWithUsers);
  deleteSession = this.call((db, tokenHash: string) => users.deleteSessions(db, { tokenHash }), { bumps: 'accounts' });
  /** Ends every session of the user; returns how many there were. */
  deleteSessions = this.call((db, userId: string) => users.deleteSessions(db, { userId }), { bumps: 'accounts' });

  createApiKey = (key: Omit<ApiKey, 'revokedAt' | 'lastUsedAt'>, keyHash: string) =>
    this.transaction((trx) => keys.createApiKey(trx, key, keyHash, this.engine), false, 'That key already exists');
  apiKeys = this.call(keys.apiKeys);
  /** Keys with their owners, by key hash, in one query (unknown hashes are absent). */
  apiKeysWithUsers = this.call(keys.apiKeysWithUsers);
  /** Marks the key revoked, and every key made with it; false when the user has no such live key. */
  revokeApiKey = this.call(keys.revokeApiKey, { tx: 'write', bumps: 'accounts' });
  touchApiKey = this.call(keys.touchApiKey);

  tiers = this.call(access.tiers);
  scopes = this.call(access.scopes);
  endpointOverrides = this.call(access.endpointOverrides);
  /** Changes whenever this process changes tiers, scopes or overrides. */
  accessGeneration = () => this.generations.access;
  roles = this.call(access.roles);
  /** Assigns an admin role (idempotent). */
  assignRole = this.call(access.assignRole);
  /** The user's live admin roles. */
  rolesOf = this.call(access.rolesOf);

  /** Adds counts (one transaction), merging entries of the same user, day and route. */
  addUsage = async (entries: UsageEntry[]) => {
    if (entries.length > 0) await this.transaction((trx) => usage.addUsage(trx, entries));
  };
  /** A user's usage rows from `fromDay` (YYYY-MM-DD) on, oldest first. */
  usage = this.call(usage.usage);

  // The admin system: configuration rows by section, role assignments, the append-only audit log,
  // feature flags, configuration snapshots and data-subject requests. Every change of several rows
  // is one transaction; changes to what the access gate reads bump `accessGeneration`.
  configRows = (section: SectionName, where: Record<string, unknown> = {}) =>
    this.run((db) => configTables.listRows(db, section, where));
  createConfigRow = this.call(configTables.insertRow, {
    bumps: 'access',
    conflict: (section) => `That ${section} entry already exists`,
  });
  /** The row before and after, or null when none matches `where`. */
  updateConfigRow = this.call(configTables.updateRow, { tx: 'write', bumps: 'access' });
  /** The deleted row, or null. Deleting a role removes its assignments in the same transaction. */
  deleteConfigRow = this.call(configTables.deleteRow, { tx: 'write', bumps: 'access' });

  assignments = this.call(adminSystem.assignments);
  /** Assigns, or updates the existing assignment of that user and role. */
  assign = this.call(adminSystem.assign, { tx: 'write' });
  /** The revoked assignment, or null when there was none. */
  revoke = this.call(adminSystem.revoke, { tx: 'write' });
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
  /** Newest first. */
  audit = this.call(adminSystem.audit, { tx: 'read' });
  /** Audit rows naming the user as actor or resource, newest first, and how many there are. */
  auditOfUser = this.call(adminSystem.auditOfUser, { tx: 'read' });
  flags = this.call(adminSystem.flags);
  flag = this.call(adminSystem.flag);
  /** Creates or replaces a flag. */
  putFlag = this.call(adminSystem.putFlag);
  deleteFlag = this.call(adminSystem.deleteFlag);
  groupMemberships = this.call(adminSystem.groupMemberships);
  addGroupMember = this.call(adminSystem.addGroupMember);
  /** Removes the user's role assignments and group memberships (one transaction); how many of each. */
  eraseAdminData = this.call(adminSystem.eraseAdminData, { tx: 'write' });

  /** The current configuration as a bundle (one read transaction). */
  configBundle = this.call(bundles.readBundle, { tx: 'read' });
  /**
   * One transaction: snapshots the current configuration (`reason`), then writes the bundle:
   * upserts by natural key, and with `replace` also deletes rows the bundle lacks.
   */
  applyBundle = this.call(
    async (trx, bundle: Bundle, o: { by: string; reason: string; replace: boolean; at: string }) => {
      const snapshotId = await bundles.createSnapshot(trx, o.by, o.reason, await bundles.readBundle(trx), o.at);
      const applied = await bundles.writeBundle(trx, this.engine, bundle, o.replace, o.at);
      return { snapshotId, applied };
    },
    { tx: 'write', bumps: 'access' },
  );
  snapshots = this.call(bundles.snapshots);
  snapshot = this.call(bundles.snapshot);

  /** Stores a flash entry (and drops entries that expired by its `createdAt`). */
  putFlash = this.call(flash.putFlash, { tx: 'write' });
  /**
   * Takes the entry of `token` in one statement (deleting it), or null when it is unknown, already
   * taken or expired at `now`: of two concurrent reads, exactly one gets the entry.
   */
  takeFlash = this.call(flash.takeFlash);
  addErrorEvent = async (event: ErrorEvent) => {
    await this.run((db) => errorEvents.addErrorEvent(db, event));
    if (this.logWrites.errorEvents++ % LOG_BOUNDS.pruneEvery === 0) {
      const { retentionDays, maxRows } = LOG_BOUNDS.errorEvents;
      const before = new Date(Date.parse(event.createdAt) - retentionDays * 86_400_000).toISOString();
      await this.run((db) => errorEvents.pruneErrorEvents(db, before, maxRows));
    }
  };
  /** The newest events first. */
  errorEvents = this.call(errorEvents.errorEvents, { tx: 'read' });
  createRuleSet = this.call(ruleSets.createRuleSet);
  /** Rule sets of `ownerId`, or of everyone when it is null; oldest first. */
  ruleSets = this.call(ruleSets.ruleSets, { tx: 'read' });
  ruleSet = this.call(ruleSets.ruleSet);
  /** Changes the rule set of `ownerId`; null when there is none with that id. */
  updateRuleSet = this.call(ruleSets.updateRuleSet, { tx: 'write' });
  /** Deletes the rule set of `ownerId`; false when there is none with that id. */
  deleteRuleSet = this.call(ruleSets.deleteRuleSet);

  private readonly queryGate = new QueryGate();

  /** The database itself, for the admin storage and database views. */
  databaseAdmin = () =>
    new DatabaseAdmin(
      this.db,
      this.location,
      // Only a PostgreSQL store's query route asks, and it has a pool: the connection is prepared.
      () => this.prepareQueries().then(() => this.queries as Promise<QueryConnection>),
      (work) => withRetries(work, this.busy),
      this.queryGate,
    );

  /**
   * PostgreSQL: prepares the query route's own low-privilege connection once (`queryUrl`, else a
   * role the store's connection makes; postgres-query-role.ts); resolves to why the route cannot
   * serve, or null. SQLite: null.
   */
  prepareQueries(queryUrl?: string): Promise<string | null> {
    if (!this.pool || this.location.engine !== 'postgres') return Promise.resolve(null);
    this.queries ??= prepareQueryConnection(this.pool, this.location.url, queryUrl);
    return this.queries.then((q) => q.refusal);
  }

  /**
   * A per-minute request counter named `name`: in this process's memory on SQLite, in the
   * database on PostgreSQL, so that every process on it counts together.
   */
  rateLimiter(name: string): RateLimiter {
    const limiter =
      this.limiters.get(name) ?? (this.pool ? postgresRateLimiter(this.pool, name) : memoryRateLimiter(name));
    this.limiters.set(name, limiter);
    return limiter;
  }

  /**
   * The durable job queue's table (asynchronous compiles and workflows). Every change of state is
   * one conditional statement, so two processes can never both move a job: a claim takes only a
   * queued job (or one whose lease lapsed), and a result is written only by the lease's holder
   * while the job is still running, in the statement that ends it.
   */
  readonly jobs = {
    /** Writes a queued job (on PostgreSQL with the wake-up of `listen`, in the same transaction). */
    enqueue: (job: Parameters<typeof jobs.enqueue>[1]) =>
      this.transaction((trx) => jobs.enqueue(trx, job, this.engine)),
    /**
     * Calls `onJob` when another process makes a job claimable (PostgreSQL's `LISTEN`; nothing on
     * SQLite, where the table is polled); answers the function that stops listening.
     */
    listen: (onJob: () => void, log: (message: string) => void): Promise<() => Promise<void>> =>
      this.location.engine === 'postgres'
        ? listenForJobs(this.location.url, onJob, log)
        : Promise.resolve(() => Promise.resolve()),
    job: this.call(jobs.job),
    /** Takes a job queued, or running under a lapsed lease, round-robin across owners; null when there is none. */
    claim: this.call(jobs.claim),
    /** Extends the lease of the holder's running jobs; answers the ids it no longer holds (cancelled, taken). */
    renew: this.call(jobs.renew),
    /** Ends a running job the lease holder holds; false when it no longer holds it (nothing is written). */
    finish: this.call(jobs.finish, { tx: 'write' }),
    /** Puts the holder's running jobs back in the queue (a server shutting down), for the next run to take. */
    release: (ids: string[], owner: string) => this.transaction((trx) => jobs.release(trx, ids, owner, this.engine)),
    /** Cancels a queued or running job of `ownerId` (any owner when null); false when there was none to cancel. */
    cancel: this.call(jobs.cancel),
    /** A page of jobs, newest first; of one owner, or of all when `ownerId` is null. */
    history: this.call(jobs.history, { tx: 'read' }),
    /** The queue's counts and timings at `now`, as `GET /api/queue/stats` answers them. */
    stats: this.call(jobs.stats, { tx: 'read' }),
    /** Removes finished jobs that ended before `before`; answers how many. */
    sweep: this.call(jobs.sweep),
    /** A workflow's recorded steps, in order (outputs included). */
    steps: this.call(jobs.steps),
    /** Records that a step started (again: its attempts count up). */
    startStep: this.call(jobs.startStep),
    endStep: this.call(jobs.endStep),
  };

  close = async () => {
    const queries = await this.queries?.catch(() => null);
    await queries?.pool?.end().catch(() => undefined);
    await this.db.destroy();
  };
}
