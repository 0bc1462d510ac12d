import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Context } from 'hono';
import { STATUS_CODES } from 'node:http';
import { z } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import {
  FlcError,
  ConfigError,
  SourceError,
  DirectiveError,
  AbortedError,
  ConflictError,
  ForbiddenError,
  StoreUnavailableError,
  TooManyCompilesError,
  BusyError,
} from '../core/errors/index.js';

/** RFC 9110's reason phrases, where they differ from Node's older table. */
const TITLES: Record<number, string> = {
  413: 'Content Too Large',
  422: 'Unprocessable Content',
};

/** The problem title of a status: its reason phrase, never a bare "Error". */
export function problemTitle(status: number): string {
  return TITLES[status] ?? STATUS_CODES[status] ?? (status >= 500 ? 'Server Error' : 'Client Error');
}

/** The OpenAPI description of a `problem()` response. */
export function problemResponse(description: string) {
  const schema = z.object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string(),
  });
  return { description, content: { 'application/problem+json': { schema } } };
}

/** An RFC 9457 problem details response; a 401 says how to authenticate (RFC 6750). */
export function problem(c: Context, status: number, detail: string): Response {
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  if (status === 401) headers['www-authenticate'] = 'Bearer';
  return c.body(
    JSON.stringify({ type: 'about:blank', title: problemTitle(status), status, detail, instance: c.req.path }),
    status as 400,
    headers,
  );
}

/** Ends a handler with a problem answer, which the app's one error handler writes. */
export function refuse(status: ContentfulStatusCode, detail: string): never {
  throw new Refusal(status, { message: detail });
}
/** A handler's own refusal: its detail is sent as it is. */
class Refusal extends HTTPException {}

/**
 * What a client may read of an error, on every path (HTTP, streams, batch items, queued results,
 * tRPC): the message of an error the server names (the core's, a refusal), never an internal one.
 */
export function clientMessage(err: unknown): string {
  return err instanceof FlcError || err instanceof HTTPException ? err.message : 'Unexpected server error';
}

/**
 * The one place errors become responses. Known errors keep their message; anything
 * else is a 500 without internals (the stack goes to the server log only).
 */
export function onError(log: (message: string) => void) {
  return (err: Error, c: Context): Response => {
    const status = statusOf(err);
    if (status === 500) log(`unhandled error on ${c.req.method} ${c.req.path}: ${err.stack ?? err.message}`);
    if (err instanceof StoreUnavailableError) c.header('retry-after', String(err.retryAfterSeconds));
    if (err instanceof HTTPException) {
      // Hono's own 400 for a body that does not parse names its parser; the client reads a plain reason.
      const bad = status === 400 && !(err instanceof Refusal) && /json/i.test(err.message);
      const detail = bad ? 'Malformed JSON in request body' : err.message;
      return problem(c, status, detail || problemTitle(status));
    }
    if (err instanceof ConfigError) return c.json({ success: false, error: err.message, errors: err.issues }, 422);
    // Refused sources, bad patterns, bad input: the request's fault, answered as the compile routes answer.
    if (status === 422) return c.json({ success: false, error: err.message }, 422);
    return problem(c, status, clientMessage(err));
  };
}

/**
 * The status of an error, the same on every path (HTTP, tRPC, streams): a refusal's own; a source
 * that failed upstream or whose content is broken 502 (the upstream's fault); an aborted compile or
 * a busy store 503; a conflict 409; a forbidden action 403; any other named error 422 (the
 * request's fault, never a 5xx); anything else 500.
 */
export function statusOf(err: unknown): ContentfulStatusCode {
  if (err instanceof HTTPException) return err.status as ContentfulStatusCode;
  if (err instanceof SourceError || err instanceof DirectiveError) return 502;
  if (err instanceof AbortedError || err instanceof StoreUnavailableError) return 503;
  if (err instanceof ConflictError) return 409;
  if (err instanceof TooManyCompilesError || err instanceof BusyError) return 429;
  if (err instanceof ForbiddenError) return 403;
  return err instanceof FlcError ? 422 : 500;
}
