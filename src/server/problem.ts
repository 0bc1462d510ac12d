import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { InputError } from '../core/errors/input-error.js';
import { FlcError } from '../core/errors/flc-error.js';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
};

/** An RFC 9457 problem details response. */
export function problem(c: Context, status: number, detail: string): Response {
  return c.body(JSON.stringify({ type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail, instance: c.req.path }), status as 400, {
    'content-type': 'application/problem+json',
  });
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
      return problem(c, status, detail || TITLES[status] || 'Error');
    }
    if (err instanceof InputError) return c.json({ success: false, error: err.message }, 422);
    if (err instanceof FlcError) return problem(c, 422, err.message);
    log(`unhandled error on ${c.req.method} ${c.req.path}: ${err.stack ?? err.message}`);
    return problem(c, 500, 'Unexpected server error');
  };
}
