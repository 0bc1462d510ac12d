import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { IncomingMessage } from 'node:http';
import { problem } from './problem.js';

class TooLarge extends Error {}

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
    incoming.once('error', reject);
  });
}

/**
 * A body-size limit enforced before the body is parsed (413 beyond `maxSize`). On the
 * Node server the body is read straight from the socket into Hono's body cache: asking
 * the adaptor for the body would build a full fetch `Request` (abort signal, web
 * streams), which costs more than the rest of a small request. Elsewhere (in-process
 * `app.request`), Hono's own `bodyLimit` does the job.
 */
export function limitedBody(maxSize: number): MiddlewareHandler {
  const tooLarge = (c: Context) => problem(c, 413, `Request body larger than ${maxSize} bytes`);
  const fallback = bodyLimit({ maxSize, onError: tooLarge });
  return async (c, next) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (!incoming || typeof incoming.on !== 'function') return fallback(c, next);
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    if (Number(incoming.headers['content-length']) > maxSize) return tooLarge(c);
    let text: string;
    try {
      text = await readIncoming(incoming, maxSize);
    } catch (e) {
      if (e instanceof TooLarge) return tooLarge(c);
      throw e;
    }
    // Hono keeps body promises here (its type says string); json() parses this text.
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    return next();
  };
}
