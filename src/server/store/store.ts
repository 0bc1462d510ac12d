import type { AccountStore } from './accounts.js';
import type { AdminStore } from './admin.js';
import type { RateLimiter } from '../rate-limit.js';
import type { JobStore } from './jobs.js';
import type { ServiceRecordStore } from './service-records.js';
import type { DatabaseAdmin } from './database-admin.js';

/** One start of a server version. */
export interface Deployment {
  id: number;
  version: string;
  nodeVersion: string;
  startedAt: string;
}

export interface DeploymentStats {
  total: number;
  versions: { version: string; count: number; firstStartedAt: string; lastStartedAt: string }[];
}

export interface HealthCheck {
  status: string;
  version: string;
  checkedAt: string;
}

/**
 * What the server keeps across restarts, on SQLite (one machine, the default) or PostgreSQL
 * (several processes on one database). Every call is asynchronous.
 */
export interface Store extends AccountStore, AdminStore, ServiceRecordStore {
  readonly engine: 'sqlite' | 'postgres';
  /** The engine and where, for logs and settings; never a password. */
  readonly description: string;
  recordDeployment(d: Omit<Deployment, 'id'>): Promise<Deployment>;
  deployments(limit: number): Promise<Deployment[]>;
  deploymentStats(): Promise<DeploymentStats>;
  recordHealth(check: HealthCheck): Promise<void>;
  latestHealth(): Promise<HealthCheck | null>;
  /** Writes, reads back and deletes a row in one transaction; throws when the store cannot. */
  smoke(at: string): Promise<void>;
  /** False since a write met a busy database (another process holds the lock), until a write succeeds. */
  writesOk(): boolean;
  /** While writes fail, tries an empty write transaction once (no retries); resolves to `writesOk()`. */
  probeWrites(): Promise<boolean>;
  /** Names of the migrations applied, in order (`001-initial`, …). */
  migrations(): Promise<string[]>;
  /**
   * A per-minute request counter named `name`: in this process's memory on SQLite, in the
   * database on PostgreSQL, so that every process on it counts together.
   */
  rateLimiter(name: string): RateLimiter;
  /** The durable job queue's table (asynchronous compiles and workflows). */
  readonly jobs: JobStore;
  /** The database itself, for the admin storage and database views. */
  databaseAdmin(): DatabaseAdmin;
  /**
   * PostgreSQL: prepares the query route's low-privilege connection (`queryUrl`, else a role the
   * store's connection makes); resolves to why the route cannot serve, or null. SQLite: null.
   */
  prepareQueries(queryUrl?: string): Promise<string | null>;
  close(): Promise<void>;
}
