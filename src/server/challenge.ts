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
export function challengeGate(settings: ChallengeSettings, fetchImpl: typeof fetch = fetch): MiddlewareHandler {
  return async (c, next) => {
    if (!settings.secretKey || c.req.method !== 'POST') return next();
    let body: Record<string, unknown>;
    try {
      body = await c.req.json();
    } catch {
      return next(); // the route's own validation answers malformed JSON with 400
    }
    const token = body?.challengeToken ?? body?.turnstileToken;
    if (typeof token !== 'string' || token.length === 0) return problem(c, 403, 'Bot challenge token required');
    if (!(await verifyChallenge(settings, token, fetchImpl)))
      return problem(c, 403, 'Bot challenge verification failed');
    return next();
  };
}

/** Whether the vendor accepts `token` (false when it cannot be asked); for the gate and the console's forms. */
export async function verifyChallenge(settings: ChallengeSettings, token: string, fetchImpl: typeof fetch = fetch) {
  const body = new URLSearchParams({ secret: settings.secretKey ?? '', response: token });
  const signal = AbortSignal.timeout(10_000);
  const res = await fetchImpl(settings.verifyUrl, { method: 'POST', body, signal }).catch(() => null);
  return res?.ok === true && ((await res.json().catch(() => ({}))) as { success?: boolean }).success === true;
}
