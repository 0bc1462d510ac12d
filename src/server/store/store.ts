import type { AccountStore } from './accounts.js';

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
 * What the server keeps across restarts. The SQLite implementation serves one machine;
 * a server database can implement the same interface when one is not enough.
 */
export interface Store extends AccountStore {
  recordDeployment(d: Omit<Deployment, 'id'>): Deployment;
  deployments(limit: number): Deployment[];
  deploymentStats(): DeploymentStats;
  recordHealth(check: HealthCheck): void;
  latestHealth(): HealthCheck | null;
  /** Writes, reads back and deletes a row in one transaction; throws when the store cannot. */
  smoke(at: string): void;
  /** Migration ids applied, in order. */
  migrations(): number[];
  close(): void;
}
