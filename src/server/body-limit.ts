import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { IncomingMessage } from 'node:http';
import { problem } from './problem.js';

/** The body every route accepts unless its own limit says otherwise. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

class TooLarge extends Error {}
/** The client went away before its body was complete: not the server's error, nothing to log. */
class BodyAborted extends Error {}

function readIncoming(incoming: IncomingMessage, maxSize: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxSize) {
        incoming.off('data', onData);
        incoming.resume(); // discard the rest; the answer is 413 either way
        reject(new TooLarge());
        return;
      }
      chunks.push(chunk);
    };
    incoming.on('data', onData);
    incoming.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.once('error', () => reject(new BodyAborted()));
    incoming.once('close', () => {
      if (!incoming.complete) reject(new BodyAborted());
    });
  });
}

/** How deeply a JSON body may nest; deeper is refused before it is parsed (a 400). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `text` nests arrays and objects deeper than `max` (strings skipped, escapes included):
 * one pass, no parse. A deeper body would reach code that recurses over it (validation, storing
 * it as JSON again) and end in a stack overflow.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92)
        i += 1; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 || ch === 123) {
      depth += 1;
      if (depth > max) return true;
    } else if (ch === 93 || ch === 125) depth -= 1;
  }
  return false;
}

const isJson = (c: Context) => /json/i.test(c.req.header('content-type') ?? '');
const tooDeep = (c: Context) => problem(c, 400, `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);

/**
 * A body-size limit enforced before the body is parsed (413 beyond `maxSize`). On the
 * Node server the body is read straight from the socket into Hono's body cache: asking
 * the adaptor for the body would build a full fetch `Request` (abort signal, web
 * streams), which costs more than the rest of a small request. Elsewhere (in-process
 * `app.request`), Hono's own `bodyLimit` does the job. Each route has one limit, its
 * descriptor's (`DEFAULT_BODY_LIMIT` unless it says otherwise).
 */
export function limitedBody(maxSize: number): MiddlewareHandler {
  const tooLarge = (c: Context) => problem(c, 413, `Request body larger than ${maxSize} bytes`);
  const fallback = bodyLimit({ maxSize, onError: tooLarge });
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (!incoming || typeof incoming.on !== 'function')
      return fallback(c, async () => {
        if (isJson(c) && nestsDeeperThan(await c.req.text(), MAX_JSON_DEPTH)) c.res = tooDeep(c);
        else await next();
      });
    if (Number(incoming.headers['content-length']) > maxSize) return tooLarge(c);
    let text: string;
    try {
      text = await readIncoming(incoming, maxSize);
    } catch (e) {
      if (e instanceof TooLarge) return tooLarge(c);
      if (e instanceof BodyAborted) return problem(c, 400, 'The request body ended before it was complete');
      throw e;
    }
    if (isJson(c) && nestsDeeperThan(text, MAX_JSON_DEPTH)) return tooDeep(c);
    // Hono keeps body promises here (its type says string); json() parses this text.
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    return next();
  };
}
