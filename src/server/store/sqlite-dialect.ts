import type Database from 'libsql';
import {
  type DatabaseConnection,
  type Driver,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  type SqliteStatement,
  type TransactionSettings,
} from 'kysely';

type LibsqlDatabase = InstanceType<typeof Database>;

/** Prepared statements kept per SQL text; the store's queries are a few dozen texts. */
const MAX_STATEMENTS = 500;

/** The statements run in a transaction of their own outside one: changes of rows. */
const WRITE = /^\s*(insert|update|delete|replace|with)\b/i;

/**
 * The libsql database as kysely's SQLite driver takes it (better-sqlite3's API), with statements
 * compiled once per SQL text and transaction control of its own.
 *
 * A change outside a transaction runs in one of its own, BEGIN IMMEDIATE, so that only BEGIN
 * meets another process's lock. libsql never resets a statement that failed: one refused as busy
 * stays active, holding its implicit transaction open, and every later write of the connection
 * would be answered and never committed (nor can a ROLLBACK end it). Transaction control goes
 * through `exec`, whose statements SQLite finalizes whatever happened. A lone SELECT runs as it
 * is (WAL readers meet no lock; one that still failed is reset when it next runs).
 */
export class LibsqlDatabaseForKysely implements SqliteDatabase {
  private readonly statements = new Map<string, SqliteStatement>();
  /** libsql aborts the process when a closed database is asked whether it is in a transaction. */
  private closed = false;

  constructor(
    private readonly db: LibsqlDatabase,
    /** A database held open alongside (one server per file), closed with this one. */
    private readonly lock?: LibsqlDatabase,
  ) {}

  prepare(sql: string): SqliteStatement {
    if (this.closed) throw new Error('The store is closed');
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql) as unknown as SqliteStatement;
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
      this.statements.set(sql, stmt);
    }
    if (!WRITE.test(sql)) return stmt;
    const prepared = stmt;
    return {
      reader: prepared.reader,
      all: (parameters) => this.alone(() => prepared.all(parameters)),
      run: (parameters) => this.alone(() => prepared.run(parameters)),
      iterate: (parameters) => prepared.iterate(parameters),
    };
  }

  /** Runs a change in a transaction of its own, unless one is open. */
  private alone<T>(change: () => T): T {
    if (this.db.inTransaction) return change();
    this.control('begin immediate');
    try {
      const result = change();
      this.control('commit');
      return result;
    } catch (err) {
      this.rollback();
      throw err;
    }
  }

  /** Begins or commits a transaction (through `exec`, see above). */
  control(statement: 'begin' | 'begin immediate' | 'commit'): void {
    if (this.closed) throw new Error('The store is closed');
    this.db.exec(statement);
  }

  /** Ends the transaction, if one is open: a BEGIN refused as busy left none. */
  rollback(): void {
    if (!this.closed && this.db.inTransaction) this.db.exec('rollback');
  }

  close(): void {
    this.closed = true;
    this.db.close();
    this.lock?.close();
  }
}

/**
 * kysely's SQLite driver (one connection, taken in turn) with write transactions that begin
 * IMMEDIATE, so a database another process holds fails at once at BEGIN (with `busy_timeout` 0
 * nothing ever waits inside SQLite and blocks the event loop; the store retries asynchronously),
 * and a transaction never fails halfway when it turns to writing.
 */
class LibsqlDriver extends SqliteDriver {
  constructor(private readonly db: LibsqlDatabaseForKysely) {
    super({ database: db });
  }

  /** kysely passes the transaction's settings, though its SQLite driver declares no parameter for them. */
  override async beginTransaction(_connection: DatabaseConnection, settings?: TransactionSettings): Promise<void> {
    this.db.control(settings?.accessMode === 'read only' ? 'begin' : 'begin immediate');
  }

  override async commitTransaction(): Promise<void> {
    this.db.control('commit');
  }

  override async rollbackTransaction(): Promise<void> {
    this.db.rollback();
  }
}

/** SQLite runs DDL in transactions too, so every migration is applied whole or not at all. */
class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** kysely's SQLite dialect (its query compiler, introspector, driver) over an open libsql database. */
export class LibsqlDialect extends SqliteDialect {
  constructor(private readonly database: LibsqlDatabaseForKysely) {
    super({ database });
  }

  override createDriver(): Driver {
    return new LibsqlDriver(this.database);
  }

  override createAdapter() {
    return new TransactionalSqliteAdapter();
  }
}
