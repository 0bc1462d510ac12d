import type { Context } from 'hono';
import type { ConsoleContext } from './frame.js';

/** An API answer as the console shows it: the body, or the message of a refusal. */
export type ApiAnswer<T> =
  | { ok: true; status: number; body: T; text: string }
  | { ok: false; status: number; message: string };

/**
 * Calls one of the server's own API routes in-process, as the browser's client: same address
 * (the connection and its forwarded-for chain), the given bearer token, a JSON body. So the
 * route's every rule (limits, throttles, checks) applies exactly as to any other client.
 */
export async function callApi<T>(
  c: Context,
  ctx: ConsoleContext,
  path: string,
  init: {
    method: 'GET' | 'POST' | 'DELETE' | 'PATCH' | 'PUT';
    body?: unknown;
    /** A body sent as it is (a configuration bundle in YAML or TOML), with its media type. */
    raw?: { text: string; type: string };
    token?: string;
    /**
     * The console route calling has been counted against the rate limit already (a sign-in
     * form, metered so that a refused form is counted too): the route called is not counted again.
     */
    counted?: boolean;
  },
): Promise<ApiAnswer<T>> {
  const headers = new Headers({ accept: 'application/json' });
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  if (init.raw) headers.set('content-type', init.raw.type);
  for (const name of ['x-forwarded-for', 'user-agent']) {
    const value = c.req.header(name);
    if (value) headers.set(name, value);
  }
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  const res = await ctx.app.request(
    new URL(path, c.req.url).href,
    {
      method: init.method,
      headers,
      body: init.raw ? init.raw.text : init.body === undefined ? undefined : JSON.stringify(init.body),
    },
    // The connection, for the client's address, but not its body: the console has read that.
    {
      incoming: { socket: (c.env as { incoming?: { socket?: unknown } } | undefined)?.incoming?.socket },
      ...(init.counted ? { flcCountedByConsole: true } : {}),
    },
  );
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (res.ok) return { ok: true, status: res.status, body: body as T, text };
  const b = (body ?? {}) as { detail?: unknown; error?: unknown };
  const message = typeof b.detail === 'string' ? b.detail : typeof b.error === 'string' ? b.error : res.statusText;
  const retry = res.headers.get('retry-after');
  return { ok: false, status: res.status, message: retry ? `${message} (try again in ${retry} s)` : message };
}
