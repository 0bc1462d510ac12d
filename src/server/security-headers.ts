import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/**
 * Every response's security headers (hono's `secure-headers`: nosniff, frame and referrer
 * policies, HSTS, cross-origin isolation) and, unless the route set its own, `Cache-Control:
 * no-store`: answers carrying session tokens, API keys or account data are never kept by a
 * browser or a proxy. Routes whose answers may be kept (the health probe) say so themselves.
 */
export function securityHeaders(): MiddlewareHandler {
  const secure = secureHeaders();
  return (c, next) =>
    secure(c, async () => {
      await next();
      if (c.res.status !== 101 && !c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store');
    });
}
