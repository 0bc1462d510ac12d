import type { Kysely, Migration } from 'kysely';
import type { Engine, MigrationUp } from './columns.js';
import { up as initial } from './001-initial.js';
import { up as accounts } from './002-accounts.js';
import { up as apiKeys } from './003-api-keys.js';
import { up as access } from './004-access.js';
import { up as userAdmin } from './005-user-admin-and-usage.js';
import { up as sharedRateLimits } from './006-shared-rate-limits.js';
import { up as adminSystem } from './007-admin-system.js';
import { up as jobs } from './010-jobs.js';
import { up as workflowSteps } from './011-workflow-steps.js';
import { up as flashMessages } from './013-flash-messages.js';
import { up as errorEvents } from './014-error-events.js';
import { up as ruleSets } from './015-rule-sets.js';
import { up as apiKeyParents } from './016-api-key-parents.js';

/**
 * Every migration, by name; applied in name order. A new table is one new file here and its line
 * below. The first five names are those of the SQL files earlier releases applied, so an
 * existing store recognises them (see `migrate.ts`).
 */
const MIGRATIONS: [name: string, up: MigrationUp][] = [
  ['001-initial', initial],
  ['002-accounts', accounts],
  ['003-api-keys', apiKeys],
  ['004-access', access],
  ['005-user-admin-and-usage', userAdmin],
  ['006-shared-rate-limits', sharedRateLimits],
  ['007-admin-system', adminSystem],
  ['010-jobs', jobs],
  ['011-workflow-steps', workflowSteps],
  ['013-flash-messages', flashMessages],
  ['014-error-events', errorEvents],
  ['015-rule-sets', ruleSets],
  ['016-api-key-parents', apiKeyParents],
];

export const MIGRATION_NAMES: readonly string[] = MIGRATIONS.map(([name]) => name);

/** The migrations for kysely's `Migrator` (a static provider: nothing is read from disk). */
export function migrationsFor(engine: Engine): Record<string, Migration> {
  return Object.fromEntries(
    // biome-ignore lint/suspicious/noExplicitAny: migrations run before (and without) the typed schema
    MIGRATIONS.map(([name, up]) => [name, { up: (db: Kysely<any>) => up(db, engine) }]),
  );
}
