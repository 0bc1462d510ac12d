import type { Context } from 'hono';
import type { MiddlewareHandler } from 'hono';

/**
 * A procedure's answer that a worker has already serialized (`/api/ast/*`'s twins): the procedure
 * gives tRPC a marker, and the route puts the bytes in its place in tRPC's envelope, so the main
 * thread never parses nor serializes an answer of tens of MiB.
 */
const answers = new WeakMap<Context, Uint8Array>();
const MARKER = '\u0000flc:serialized-answer';
const MARKER_JSON = JSON.stringify(MARKER);

/** What a procedure returns for `bytes` (the JSON of a `T`); `spliceSerialized` sends the bytes. */
export function serializedAnswer<T>(c: Context, bytes: Uint8Array): T {
  answers.set(c, bytes);
  return MARKER as unknown as T;
}

/** `handler` (tRPC's), with a serialized answer put in place of its marker. */
export function spliceSerialized(handler: MiddlewareHandler): MiddlewareHandler {
  return async (c, next) => {
    const res = await handler(c, next);
    const bytes = answers.get(c);
    if (!bytes || !res) return res;
    answers.delete(c);
    const text = await res.text();
    const at = text.indexOf(MARKER_JSON);
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    const body =
      at < 0
        ? text
        : Buffer.concat([Buffer.from(text.slice(0, at)), bytes, Buffer.from(text.slice(at + MARKER_JSON.length))]);
    return new Response(body, { status: res.status, headers });
  };
}
