import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_DATA_HOME/flc/flc.db`, else `~/.local/share/flc/flc.db`. */
export function defaultDbFile(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'flc', 'flc.db');
}
