import type { KyselyStore } from './kysely-store.js';

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
 * (several processes on one database): the public members of the one implementation, documented
 * there. Every call is asynchronous.
 */
export type Store = { [K in keyof KyselyStore]: KyselyStore[K] };
