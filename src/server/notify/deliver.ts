import { z } from '@hono/zod-openapi';
import { Agent, fetch } from 'undici';
import type { Outbound } from './targets.js';

/** One target's outcome, as `POST /api/notify` lists it. */
export const delivery = z.object({
  target: z.enum(['generic', 'errortracker', 'metrics']),
  success: z.boolean(),
  statusCode: z.number().int().optional(),
  error: z.string().optional(),
});
export type Delivery = z.infer<typeof delivery>;

/**
 * Why a request failed, in words of our own: an error's message may quote the URL, and the
 * URL may carry a secret.
 */
function failure(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; cause?: { code?: unknown; message?: unknown } };
  if (e.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (e.cause?.message === 'unexpected redirect') return 'redirect refused';
  const code = e.cause?.code;
  if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return `connection failed (${code})`;
  return 'request failed';
}

/**
 * No connection is kept for the next delivery: notifications are rare, and a kept one that the
 * target closed meanwhile fails the next POST (ECONNRESET), which is not retried.
 */
const oneUse = new Agent({ pipelining: 0 });

async function send(r: Outbound, timeoutMs: number): Promise<Delivery> {
  if ('error' in r) return { target: r.target, success: false, error: r.error };
  try {
    // Redirects are refused: requests go to the configured targets only.
    const res = await fetch(r.url, {
      method: 'POST',
      headers: r.headers,
      body: r.body,
      redirect: 'error',
      dispatcher: oneUse,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => undefined);
    if (res.ok) return { target: r.target, success: true, statusCode: res.status };
    return { target: r.target, success: false, statusCode: res.status, error: `HTTP ${res.status}` };
  } catch (err) {
    return { target: r.target, success: false, error: failure(err, timeoutMs) };
  }
}

/** Sends every request at once, each with its own timeout; one target's failure never stops another. */
export function deliverAll(requests: Outbound[], timeoutMs: number): Promise<Delivery[]> {
  return Promise.all(requests.map((r) => send(r, timeoutMs)));
}
