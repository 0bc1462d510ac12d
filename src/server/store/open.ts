import { SqliteStore } from './sqlite-store.js';
import { defaultDbFile } from './location.js';

/** The store at `file`, or at the default location `flc serve` uses. */
export function openStore(file?: string): SqliteStore {
  return new SqliteStore(file ?? defaultDbFile(process.env));
}
