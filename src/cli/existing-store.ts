import { existsSync } from 'node:fs';
import { InputError } from '../core/errors/index.js';
import type { Store } from '../server/store/store.js';

/**
 * The store a command that reads or changes what is already there opens (`user list`, `user
 * remove`, `config export`, a dry-run `config import`). A SQLite file must exist: opening one makes
 * it, so a mistyped `--db` would get an empty store made, and the command would find nothing in
 * it. `flc serve`, `flc user add` and an applied `flc config import` make a new store.
 */
export async function openExistingStore(db: string | undefined): Promise<Store> {
  const { storeLocation } = await import('../server/store/location.js');
  const { openStore } = await import('../server/store/open.js');
  const where = storeLocation(db, process.env);
  if (where.engine === 'sqlite' && where.file !== ':memory:' && !existsSync(where.file)) {
    throw new InputError([
      `no store at ${where.file}: check --db (or FLC_DATABASE_URL, FLC_DB); flc serve and flc user add make a new one`,
    ]);
  }
  return openStore(where);
}
