import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the store is: a SQLite file (the default) or a PostgreSQL database. */
export type StoreLocation = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };

/** `$XDG_DATA_HOME/flc/flc.db`, else `~/.local/share/flc/flc.db`. */
export function defaultDbFile(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'flc', 'flc.db');
}

/**
 * The store `--db` names: a `postgres://` or `postgresql://` URL, else a SQLite file path. Without
 * `--db`: `FLC_DATABASE_URL` (which oclif passes as the flag), then `FLC_DB` (its earlier name),
 * then the default file.
 */
export function storeLocation(value: string | undefined, env: NodeJS.ProcessEnv): StoreLocation {
  const chosen = value || env.FLC_DB || defaultDbFile(env);
  return /^postgres(ql)?:\/\//i.test(chosen) ? { engine: 'postgres', url: chosen } : { engine: 'sqlite', file: chosen };
}

/** The location for logs and settings: the engine and where, never a password from a URL. */
export function describeLocation(location: StoreLocation): string {
  if (location.engine === 'sqlite') return `SQLite ${location.file}`;
  return `PostgreSQL ${redactUrl(location.url)}`;
}

/** The URL with its password (in the user part or a `password` parameter) replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const name of [...u.searchParams.keys()]) if (/pass/i.test(name)) u.searchParams.set(name, '***');
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
