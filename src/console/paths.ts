/** Where the console answers: its pages under `/console`, and the account forms at the top. */
export const CONSOLE_PREFIX = '/console';
export const ACCOUNT_PATHS = ['/', '/login', '/signup', '/logout', '/support'] as const;

/** Whether a path is the console's (the session cookie means something only there). */
export function isConsolePath(path: string): boolean {
  return (
    path === CONSOLE_PREFIX ||
    path.startsWith(`${CONSOLE_PREFIX}/`) ||
    (ACCOUNT_PATHS as readonly string[]).includes(path)
  );
}

/** A console path with `?v=` the file's digest, so static files can be cached for a year. */
export const staticPath = (name: string, digest: string) => `${CONSOLE_PREFIX}/static/${name}?v=${digest}`;
