import { join } from 'node:path';
import { homedir } from 'node:os';

/** The default cache folder: `$FLC_CACHE_DIR`, else `$XDG_CACHE_HOME/flc`, else `~/.cache/flc`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FLC_CACHE_DIR) return env.FLC_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'flc');
}
