import { ConfigError, type ConfigIssue, InputError, FlcError } from '../core/errors/index.js';

/** What `flc config` shares: the flags' help and the calls to a running server. */

export const DB_HELP = 'the store `flc serve --db` uses: a SQLite file or a postgres:// URL (FLC_DB also names a file)';
export const URL_HELP = 'a running server to talk to instead of the store (its API key from FLC_API_KEY)';

/** A failed call to the server (not a problem with the bundle). */
class RemoteError extends FlcError {
  constructor(message: string) {
    super('REMOTE_FAILED', message);
    this.name = 'RemoteError';
  }
}

/** Calls `path` on the server at `base` with the API key of FLC_API_KEY; a 422 is the bundle's problems. */
export async function callServer(base: string, path: string, init: RequestInit = {}): Promise<Response> {
  const key = process.env.FLC_API_KEY;
  if (!key) throw new InputError(['FLC_API_KEY must hold an API key with the admin scope when --url is given']);
  const res = await fetch(new URL(path, base), {
    ...init,
    headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` },
  });
  if (res.ok) return res;
  const body = (await res.json().catch(() => ({}))) as { detail?: string; error?: string; errors?: ConfigIssue[] };
  if (res.status === 422 && body.errors) throw new ConfigError(body.errors, { file: 'the bundle' });
  throw new RemoteError(`The server answered ${res.status}: ${body.detail ?? body.error ?? res.statusText}`);
}
