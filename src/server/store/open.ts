import { closeSync, mkdirSync, openSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'libsql';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Store } from './store.js';
import type { Database as Schema } from './schema.js';
import { KyselyStore } from './kysely-store.js';
import { LibsqlDatabaseForKysely, LibsqlDialect } from './sqlite-dialect.js';
import { migrate } from './migrate.js';
import { type BusyPolicy, DEFAULT_BUSY_POLICY, withRetries } from './failures.js';
import { StoreUnavailableError } from '../../core/errors/index.js';
import { describeLocation, type StoreLocation, storeLocation } from './location.js';

export interface OpenOptions {
  /** How long a busy database is retried before a request fails with 503. */
  busy?: BusyPolicy;
  /** Where a PostgreSQL pool reports a connection that failed while idle. */
  log?: (message: string) => void;
  /** SQLite file: hold `FILE.lock` while open, refusing a store another process holds (`flc serve`). */
  exclusive?: boolean;
}

/**
 * Opens the store at `location` (a SQLite file, `:memory:`, or a `postgres://` URL; by default the
 * file `flc serve` uses) and applies the migrations it lacks.
 */
export async function openStore(location?: StoreLocation | string, options: OpenOptions = {}): Promise<Store> {
  const where = typeof location === 'object' ? location : storeLocation(location, process.env);
  const busy = options.busy ?? DEFAULT_BUSY_POLICY;
  if (where.engine === 'postgres') {
    // A lock another session holds longer than 5 s, or a server that does not answer a connection
    // in 5 s, fails that request with 503 rather than holding it (and its connection) indefinitely.
    const pool = new pg.Pool({
      connectionString: where.url,
      max: 10,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
      lock_timeout: busy.budgetMs,
      statement_timeout: 30_000,
    });
    pool.on('error', (err) => options.log?.(`store: an idle PostgreSQL connection failed: ${err.message}`));
    const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
    return ready(new KyselyStore(db, 'postgres', describeLocation(where), pool, busy, where), db, 'postgres', busy);
  }
  const sqlite = openSqlite(where.file);
  let lock: InstanceType<typeof Database> | undefined;
  try {
    lock = options.exclusive && where.file !== ':memory:' ? lockSqlite(where.file) : undefined;
  } catch (err) {
    sqlite.close();
    throw err;
  }
  const db = new Kysely<Schema>({ dialect: new LibsqlDialect(new LibsqlDatabaseForKysely(sqlite, lock)) });
  return ready(new KyselyStore(db, 'sqlite', describeLocation(where), null, busy, where), db, 'sqlite', busy);
}

async function ready(store: Store, db: Kysely<Schema>, engine: 'sqlite' | 'postgres', busy: BusyPolicy) {
  try {
    await withRetries(() => migrate(db, engine), busy);
  } catch (err) {
    await store.close().catch(() => undefined);
    // Said with the store it is about (never a password) and the database's own words.
    const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : '';
    const message = `Cannot open the store (${store.description}): ${(err as Error).message}`;
    throw new StoreUnavailableError(cause ? `${message}: ${cause}` : message, busy.retryAfterSeconds, { cause: err });
  }
  return store;
}

/**
 * A new store file is made readable by its owner only (0600) in folders only its owner can enter
 * (0700): it holds password hashes. Existing files and folders keep their modes.
 */
function openSqlite(file: string): InstanceType<typeof Database> {
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    closeSync(openSync(file, 'a', 0o600));
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // WAL with NORMAL: a commit survives a crash of the process; only a power loss can drop the
  // last ones. FULL would wait for the disk on every commit.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // SQLite's own busy wait would block the event loop; the store retries asynchronously instead.
  db.pragma('busy_timeout = 0');
  return db;
}

/**
 * One server per SQLite file: a second database, `FILE.lock`, kept in an EXCLUSIVE transaction
 * for as long as the store is open. The operating system's lock on it goes with the process,
 * however it ends, so a crashed server leaves nothing stale behind; a second `flc serve` meets it
 * and refuses to start (two would double every rate limit and race on the file's write lock).
 * The lock sits beside the file itself, symbolic links resolved (SQLite follows them too): a
 * link to the store elsewhere, or a path through a linked folder, names the same lock.
 */
function lockSqlite(named: string): InstanceType<typeof Database> {
  // The store file exists by now (openSqlite made it), so its real path can be read.
  const file = realpathSync(named);
  const lock = new Database(`${file}.lock`);
  try {
    lock.pragma('busy_timeout = 0');
    lock.exec('begin exclusive');
  } catch (err) {
    lock.close();
    const busy = /BUSY|LOCKED/.test(String((err as { code?: unknown }).code));
    if (!busy) throw err;
    throw new StoreUnavailableError(
      `Another flc serve is using ${named} (it holds ${file}.lock). A SQLite store serves one process: ` +
        'stop the other one, or run several servers on one PostgreSQL database (--db postgres://…)',
      DEFAULT_BUSY_POLICY.retryAfterSeconds,
      { cause: err },
    );
  }
  return lock;
}
