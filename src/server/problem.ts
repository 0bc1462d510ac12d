import type { Context } from 'hono';
import { STATUS_CODES } from 'node:http';
import { z } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import {
  InputError,
  FlcError,
  ConfigError,
  SourceError,
  DirectiveError,
  AbortedError,
  ConflictError,
  ForbiddenError,
  StoreUnavailableError,
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

/**
 * The one place errors become responses. Known errors keep their message; anything
 * else is a 500 without internals (the stack goes to the server log only).
 */
export function onError(log: (message: string) => void) {
  return (err: Error, c: Context): Response => {
    if (err instanceof HTTPException) {
      const status = err.status;
      const detail = status === 400 && /json/i.test(err.message) ? 'Malformed JSON in request body' : err.message;
      return problem(c, status, detail || problemTitle(status));
    }
    if (err instanceof InputError) return c.json({ success: false, error: err.message }, 422);
    if (err instanceof ConfigError) return c.json({ success: false, error: err.message, errors: err.issues }, 422);
    // A source that failed upstream, or whose content is broken, is the upstream's fault.
    if (err instanceof SourceError || err instanceof DirectiveError) return problem(c, 502, err.message);
    if (err instanceof AbortedError) return problem(c, 503, err.message);
    if (err instanceof ConflictError) return problem(c, 409, err.message);
    if (err instanceof ForbiddenError) return problem(c, 403, err.message);
    // A busy or unreachable store fails this request only; the next ones go on.
    if (err instanceof StoreUnavailableError) {
      c.header('retry-after', String(err.retryAfterSeconds));
      return problem(c, 503, err.message);
    }
    // Refused sources, bad patterns: the request's fault, never a 5xx.
    if (err instanceof FlcError) return c.json({ success: false, error: err.message }, 422);
    log(`unhandled error on ${c.req.method} ${c.req.path}: ${err.stack ?? err.message}`);
    return problem(c, 500, 'Unexpected server error');
  };
}
