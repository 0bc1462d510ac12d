import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';

/** The engines one migration is written for. */
export type Engine = 'sqlite' | 'postgres';

/** A migration: written once, given the engine for the few column types that differ. */
// biome-ignore lint/suspicious/noExplicitAny: migrations run before (and without) the typed schema
export type MigrationUp = (db: Kysely<any>, engine: Engine) => Promise<void>;

/** An auto-numbered integer key: `INTEGER PRIMARY KEY AUTOINCREMENT` on SQLite, `serial` on PostgreSQL. */
export function idType(engine: Engine): 'integer' | 'serial' {
  return engine === 'postgres' ? 'serial' : 'integer';
}

export function idColumn(engine: Engine) {
  return (c: ColumnDefinitionBuilder) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
}

/** The current time as the ISO-8601 text every timestamp column holds (`2026-01-01T00:00:00.000Z`). */
export function nowText(engine: Engine) {
  return engine === 'postgres'
    ? sql`(to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`
    : sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;
}
