import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';
import { redactUrl, type StoreLocation } from './location.js';
import { jsonValue, type QueryAnswer, QueryRefusedError } from '../admin/query-result.js';
import { sqliteReadOnlyQuery } from '../admin/sqlite-query.js';
import { postgresReadOnlyQuery } from '../admin/postgres-query.js';
import { refuseStatement } from '../admin/sql-guard.js';
import type { QueryGate } from '../admin/query-gate.js';
import type { QueryConnection } from '../admin/postgres-query-role.js';
import { isSecretColumn, REDACTED } from './secret-columns.js';
import { sweep } from './queries/jobs.js';

/** The local database as the admin storage and database views see it; one implementation for both engines. */
export class DatabaseAdmin {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly location: StoreLocation,
    /** PostgreSQL: the query route's low-privilege connection. */
    private readonly queries: () => Promise<QueryConnection>,
    /** Runs a call as the store runs its own: a busy database is retried, then 503. */
    private readonly retry: <T>(work: () => Promise<T>) => Promise<T>,
    /** The store's cap on queries running at once (one per store, shared by every DatabaseAdmin). */
    private readonly gate: QueryGate,
  ) {}

  // biome-ignore lint/suspicious/noExplicitAny: tables of other releases are not in the typed schema
  private get any(): Kysely<any> {
    return this.db as never;
  }

  async tableNames(): Promise<string[]> {
    const q =
      this.location.engine === 'sqlite'
        ? sql<{
            name: string;
          }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`
        : sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`;
    return (await q.execute(this.db)).rows.map((r) => r.name);
  }

  private async count(table: string): Promise<number> {
    const row = await this.any
      .selectFrom(table)
      .select((e) => e.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Every table of the store with its number of rows. */
  tables() {
    return this.retry(async () => {
      const names = await this.tableNames();
      return Promise.all(names.map(async (name) => ({ name, rows: await this.count(name) })));
    });
  }

  /** A page of `table`'s rows in the order of its first column; null for a table that is not there. */
  tablePage(table: string, limit: number, offset: number) {
    return this.retry(async () => {
      if (!(await this.tableNames()).includes(table)) return null;
      const rows = (await this.any
        .selectFrom(table)
        .selectAll()
        .orderBy(sql`1`)
        .limit(limit)
        .offset(offset)
        .execute()) as Record<string, unknown>[];
      const columns =
        rows.length > 0
          ? Object.keys(rows[0])
          : ((await this.db.introspection.getTables()).find((t) => t.name === table)?.columns.map((c) => c.name) ?? []);
      const shown = rows.map((r) =>
        Object.fromEntries(
          Object.entries(r).map(([k, v]) => [k, isSecretColumn(table, k) && v !== null ? REDACTED : jsonValue(v)]),
        ),
      );
      return { table, columns, rows: shown, total: await this.count(table) };
    });
  }

  /** SQLite: VACUUM and ANALYZE; PostgreSQL: VACUUM (ANALYZE) of each table of the store's schema. */
  vacuum(): Promise<string[]> {
    return this.retry(async () => {
      if (this.location.engine === 'sqlite') {
        await sql`vacuum`.execute(this.db);
        await sql`analyze`.execute(this.db);
        return ['VACUUM', 'ANALYZE'];
      }
      const done: string[] = [];
      for (const name of await this.tableNames()) {
        await sql`vacuum (analyze) ${sql.table(name)}`.execute(this.db);
        done.push(`VACUUM (ANALYZE) ${name}`);
      }
      return done;
    });
  }

  /** SQLite: the write-ahead log copied into the database and truncated. PostgreSQL checkpoints by itself. */
  checkpoint(): Promise<{ performed: boolean; detail: Record<string, unknown> }> {
    return this.retry(async () => {
      if (this.location.engine === 'postgres')
        return { performed: false, detail: { reason: 'PostgreSQL writes its own checkpoints' } };
      const row = (await sql<Record<string, unknown>>`pragma wal_checkpoint(TRUNCATE)`.execute(this.db)).rows[0] ?? {};
      return { performed: true, detail: Object.fromEntries(Object.entries(row).map(([k, v]) => [k, jsonValue(v)])) };
    });
  }

  /**
   * Deletes expired sessions and flash entries, finished queue jobs (and their results) that
   * finished before `resultsBefore` and browser error reports made before `eventsBefore`; answers
   * how many of each.
   */
  prune(now: string, resultsBefore: string, eventsBefore: string) {
    return this.retry(async () => {
      const deleted = async (query: { executeTakeFirst(): Promise<{ numDeletedRows: bigint }> }) =>
        Number((await query.executeTakeFirst()).numDeletedRows);
      return {
        sessions: await deleted(this.db.deleteFrom('sessions').where('expires_at', '<=', now)),
        flash: await deleted(this.db.deleteFrom('flash_messages').where('expires_at', '<=', now)),
        results: await sweep(this.db, resultsBefore),
        errorEvents: await deleted(this.db.deleteFrom('error_events').where('created_at', '<', eventsBefore)),
      };
    });
  }

  /**
   * The engine, its version, the location (the file, or the URL without its password), the
   * database's size in bytes (SQLite: the file's pages; PostgreSQL: the whole database and, apart,
   * the schema the store lives in and the size of its tables), and how many tables and migrations
   * it has.
   */
  info() {
    return this.retry(async () => {
      const tables = (await this.tableNames()).length;
      const migrations = await this.count('kysely_migration');
      const location = this.location.engine === 'sqlite' ? this.location.file : redactUrl(this.location.url);
      if (this.location.engine === 'sqlite') {
        const r = (
          await sql<{ v: string; size: number }>`select sqlite_version() as v,
            (select page_count from pragma_page_count()) * (select page_size from pragma_page_size()) as size`.execute(
            this.db,
          )
        ).rows[0];
        return {
          engine: 'sqlite' as const,
          version: `SQLite ${r.v}`,
          location,
          sizeBytes: Number(r.size),
          tables,
          migrations,
        };
      }
      const r = (
        await sql<{ v: string; size: string; schema: string; schema_size: string }>`select version() as v,
          pg_database_size(current_database()) as size, current_schema() as schema,
          (select coalesce(sum(pg_total_relation_size(c.oid)), 0) from pg_class c
            join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relkind = 'r')
            as schema_size`.execute(this.db)
      ).rows[0];
      return {
        engine: 'postgres' as const,
        version: r.v.split(' on ')[0],
        location,
        sizeBytes: Number(r.size),
        schema: r.schema,
        schemaSizeBytes: Number(r.schema_size),
        tables,
        migrations,
      };
    });
  }

  /**
   * The database itself as the one primary branch, and each configuration snapshot (the admin
   * system's `config_snapshots`) as a branch of it.
   */
  branches() {
    return this.retry(async () => {
      const first = await this.any
        .selectFrom('kysely_migration')
        .select((e) => e.fn.min('timestamp').as('at'))
        .executeTakeFirst();
      const snapshots = await this.db
        .selectFrom('config_snapshots')
        .select(['id', 'created_at', 'created_by', 'reason'])
        .orderBy('id', 'desc')
        .limit(100)
        .execute();
      return [
        {
          id: 'main',
          name: 'main',
          kind: 'database' as const,
          primary: true,
          current: true,
          parentId: null,
          createdAt: first?.at ? String(first.at) : null,
        },
        ...snapshots.map((s) => ({
          id: `snapshot-${s.id}`,
          name: s.reason,
          kind: 'snapshot' as const,
          primary: false,
          current: false,
          parentId: 'main',
          createdAt: s.created_at,
          createdBy: s.created_by,
        })),
      ];
    });
  }

  /**
   * One read-only statement: checked on its parse (sql-guard.ts), then run where it can read only
   * the store's non-secret columns (SQLite: a checked plan over redacting views in a process of its
   * own; PostgreSQL: the query role), capped in rows, bytes and time.
   */
  async readOnlyQuery(text: string, limits: Parameters<typeof sqliteReadOnlyQuery>[2]): Promise<QueryAnswer> {
    const refused = refuseStatement(text, this.location.engine);
    if (refused) throw new QueryRefusedError(refused);
    if (this.location.engine === 'postgres') {
      const connection = await this.queries();
      const { pool, stop } = connection;
      if (!pool || !stop) throw new QueryRefusedError(`The query route is off: ${connection.refusal}`, 503);
      return this.gate.run(() => postgresReadOnlyQuery(pool, text, limits, stop));
    }
    const { file } = this.location;
    if (file !== ':memory:') return this.gate.run(() => sqliteReadOnlyQuery(file, text, limits));
    throw new QueryRefusedError('An in-memory store has no file that a second, read-only connection could open');
  }
}
