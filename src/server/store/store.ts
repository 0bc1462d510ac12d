import type { Selectable } from 'kysely';
import type { KyselyStore } from './kysely-store.js';
import type { Camel } from './rows.js';
import type { Database } from './schema.js';

/** One start of a server version. */
export type Deployment = Camel<Selectable<Database['deployments']>>;

export type HealthCheck = Omit<Camel<Database['health_checks']>, 'id'>;

/**
 * What the server keeps across restarts, on SQLite (one machine, the default) or PostgreSQL
 * (several processes on one database): the public members of the one implementation, documented
 * there. Every call is asynchronous.
 */
export type Store = { [K in keyof KyselyStore]: KyselyStore[K] };
