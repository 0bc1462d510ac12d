import type { MiddlewareHandler } from 'hono';
import { isConsolePath } from './paths.js';

/**
 * The console's Content-Security-Policy: scripts and styles from this server's files only (no
 * inline script, style or `eval`), forms posting only here, never framed. The bot challenge's
 * origin is added for its widget when the challenge is configured.
 */
export function consolePolicy(challengeOrigin?: string): string {
  const vendor = challengeOrigin ? ` ${challengeOrigin}` : '';
  return [
    "default-src 'none'",
    `script-src 'self'${vendor}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    `frame-src${vendor || " 'none'"}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Sets the policy on every HTML answer of a console path. */
export function contentSecurityPolicy(policy: string): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!isConsolePath(c.req.path)) return;
    if ((c.res.headers.get('content-type') ?? '').startsWith('text/html'))
      c.res.headers.set('content-security-policy', policy);
  };
}
