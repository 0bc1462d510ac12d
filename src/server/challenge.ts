import type { MiddlewareHandler } from 'hono';
import { problem } from './problem.js';

export interface ChallengeSettings {
  /** The challenge vendor's secret; verification is off when unset. */
  secretKey?: string;
  /** Public site key shown to browsers by /api/turnstile-config. */
  siteKey?: string;
  /** Where tokens are verified (Cloudflare Turnstile's siteverify by default). */
  verifyUrl: string;
}

export const DEFAULT_VERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';

/**
 * Requires a valid bot-challenge token (`challengeToken`, or `turnstileToken` as the
 * vendor names it) in the JSON body when a secret is configured; 403 otherwise.
 */
export function challengeGate(settings: ChallengeSettings): MiddlewareHandler {
  return async (c, next) => {
    if (!settings.secretKey || c.req.method !== 'POST') return next();
    let body: Record<string, unknown>;
    try {
      body = await c.req.json();
    } catch {
      return next(); // the route's own validation answers malformed JSON with 400
    }
    const refused = await challengeRefusal(settings, body?.challengeToken ?? body?.turnstileToken, c.req.raw.signal);
    return refused ? problem(c, 403, refused) : next();
  };
}

/**
 * Why `token` does not pass the bot challenge, or null when it passes or no secret is configured:
 * the one rule for the gate's POSTs and a WebSocket's compile messages.
 */
export async function challengeRefusal(settings: ChallengeSettings | undefined, token: unknown, stop?: AbortSignal) {
  if (!settings?.secretKey) return null;
  if (typeof token !== 'string' || token.length === 0) return 'Bot challenge token required';
  return (await verifyChallenge(settings, token, stop)) ? null : 'Bot challenge verification failed';
}

/**
 * Whether the vendor accepts `token` (false unless it answers within 10 s and before `stop` aborts), for the
 * gate and the console's forms. A token longer than the vendor issues (2,048 characters) is refused unasked.
 */
export async function verifyChallenge(settings: ChallengeSettings, token: string, stop?: AbortSignal) {
  if (token.length > 2048) return false;
  const body = new URLSearchParams({ secret: settings.secretKey ?? '', response: token });
  const signal = AbortSignal.any([AbortSignal.timeout(10_000), ...(stop ? [stop] : [])]);
  const res = await fetch(settings.verifyUrl, { method: 'POST', body, signal }).catch(() => null);
  return res?.ok === true && ((await res.json().catch(() => ({}))) as { success?: boolean }).success === true;
}
