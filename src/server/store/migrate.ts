import { type Kysely, Migrator, sql } from 'kysely';
import type { Engine } from './migrations/columns.js';
import { MIGRATION_NAMES, migrationsFor } from './migrations/index.js';

/**
 * Brings the store up to date, one migration per transaction, in name order. Two processes
 * starting together on one PostgreSQL database take turns (kysely's migration lock).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run before (and without) the typed schema
export async function migrate(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine === 'sqlite') await adoptLegacyMigrations(db);
  // On PostgreSQL kysely's bookkeeping goes in the schema the tables go in (the first of the
  // `search_path`), also when other schemas of the database hold a store of their own.
  const schema =
    engine === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrationsFor(engine) },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (;;) {
    const { error, results } = await migrator.migrateUp();
    if (error) throw error;
    if (!results || results.length === 0) return;
  }
}

/**
 * Stores made by earlier releases list their applied SQL files (`001-initial.sql`, …) in
 * `schema_migrations`. Their names are copied once into kysely's table, so those migrations are
 * not applied again and the ones after them are.
 */
// biome-ignore lint/suspicious/noExplicitAny: the legacy table is not part of the typed schema
async function adoptLegacyMigrations(db: Kysely<any>): Promise<void> {
  const tables = new Set((await db.introspection.getTables({ withInternalKyselyTables: true })).map((t) => t.name));
  if (!tables.has('schema_migrations') || tables.has('kysely_migration')) return;
  await db.transaction().execute(async (trx) => {
    await trx.schema
      .createTable('kysely_migration')
      .ifNotExists()
      .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
      .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
      .execute();
    const legacy = await trx.selectFrom('schema_migrations').select(['id', 'applied_at']).orderBy('id').execute();
    for (const row of legacy) {
      const name = MIGRATION_NAMES.find((n) => Number(n.slice(0, 3)) === Number(row.id));
      if (!name) throw new Error(`the store has migration ${row.id}, which this version does not know`);
      await trx
        .insertInto('kysely_migration')
        .values({ name, timestamp: String(row.applied_at) })
        .execute();
    }
  });
}
