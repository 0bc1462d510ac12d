import type Database from 'libsql';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type TransactionSettings,
} from 'kysely';

type LibsqlDatabase = InstanceType<typeof Database>;
type Statement = ReturnType<LibsqlDatabase['prepare']>;

/** Prepared statements kept per SQL text; the store's queries are a few dozen texts. */
const MAX_STATEMENTS = 500;

/** The statements run in a transaction of their own outside one: changes of rows. */
const WRITE = /^\s*(insert|update|delete|replace|with)\b/i;

/** One libsql connection; statements are compiled once per SQL text. */
class LibsqlConnection implements DatabaseConnection {
  private readonly statements = new Map<string, Statement>();
  /** libsql aborts the process when a closed database is asked whether it is in a transaction. */
  closed = false;

  constructor(readonly db: LibsqlDatabase) {}

  private prepare(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * A change outside a transaction runs in one of its own, BEGIN IMMEDIATE, so that only BEGIN
   * meets another process's lock. libsql never resets a statement that failed: one refused as busy
   * stays active, holding its implicit transaction open, and every later write of the connection
   * would be answered and never committed (nor can a ROLLBACK end it). Transaction control goes
   * through `exec`, whose statements SQLite finalizes whatever happened. A lone SELECT runs as it
   * is (WAL readers meet no lock; one that still failed is reset when it next runs).
   */
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.closed) throw new Error('The store is closed');
    if (!WRITE.test(query.sql) || this.db.inTransaction) return this.execute(query);
    this.begin(true);
    try {
      const result = this.execute<R>(query);
      this.commit();
      return result;
    } catch (err) {
      this.rollback();
      throw err;
    }
  }

  begin(immediate: boolean): void {
    if (this.closed) throw new Error('The store is closed');
    this.db.exec(immediate ? 'begin immediate' : 'begin');
  }

  commit(): void {
    if (this.closed) throw new Error('The store is closed');
    this.db.exec('commit');
  }

  /** Ends the transaction, if one is open: a BEGIN refused as busy left none. */
  rollback(): void {
    if (!this.closed && this.db.inTransaction) this.db.exec('rollback');
  }

  private execute<R>(query: CompiledQuery): QueryResult<R> {
    const stmt = this.prepare(query.sql);
    const parameters = query.parameters as unknown[];
    if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
    const { changes, lastInsertRowid } = stmt.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  // biome-ignore lint/correctness/useYield: the store never streams
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by the SQLite store');
  }
}

/**
 * kysely's driver over libsql's synchronous, better-sqlite3-style API: one connection, taken in
 * turn. Write transactions begin IMMEDIATE, so a database another process holds fails at once at
 * BEGIN (with `busy_timeout` 0 nothing ever waits inside SQLite and blocks the event loop; the
 * store retries asynchronously), and a transaction never fails halfway when it turns to writing.
 */
class LibsqlDriver implements Driver {
  private readonly connection: LibsqlConnection;
  private queue: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;

  constructor(
    db: LibsqlDatabase,
    private readonly lock?: LibsqlDatabase,
  ) {
    this.connection = new LibsqlConnection(db);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    this.release = release;
    return this.connection;
  }

  async beginTransaction(_connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    this.connection.begin(settings.accessMode !== 'read only');
  }

  async commitTransaction(): Promise<void> {
    this.connection.commit();
  }

  async rollbackTransaction(): Promise<void> {
    this.connection.rollback();
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    this.connection.closed = true;
    this.connection.db.close();
    this.lock?.close();
  }
}

/** SQLite runs DDL in transactions too, so every migration is applied whole or not at all. */
class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** kysely's SQLite dialect (its query compiler, adapter, introspector) over an open libsql database. */
export class LibsqlDialect implements Dialect {
  /** `lock`: a database held open alongside (one server per file), closed with the store. */
  constructor(
    private readonly db: LibsqlDatabase,
    private readonly lock?: LibsqlDatabase,
  ) {}

  createDriver(): Driver {
    return new LibsqlDriver(this.db, this.lock);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }

  createAdapter() {
    return new TransactionalSqliteAdapter();
  }

  // biome-ignore lint/suspicious/noExplicitAny: kysely's own signature
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
