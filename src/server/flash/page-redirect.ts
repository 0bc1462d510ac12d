import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import { DEFAULT_FLASH, issueFlash, loginRedirect } from './flash-messages.js';

/**
 * A page request: what a browser sends when it navigates (a GET that accepts HTML and not JSON),
 * not an API client's fetch or a WebSocket upgrade.
 */
export function isPageRequest(c: Context): boolean {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return false;
  if (c.req.header('upgrade')) return false;
  const accept = (c.req.header('accept') ?? '').toLowerCase();
  return accept.includes('text/html') && !accept.includes('application/json');
}

/** The registry code of an auth rejection: a ban is a locked account, any other 403 a forbidden page. */
function codeOf(status: number, detail: string): string {
  if (status === 401) return 'TOKEN_EXPIRED';
  return /banned/i.test(detail) ? 'ACCOUNT_LOCKED' : 'FORBIDDEN';
}

/**
 * The redirect contract: an auth rejection (401, 403) of a page request becomes a 302 to the login
 * location with `flash=<token>`, the token holding the rejection's code and message. When the
 * flash entry cannot be stored, the rejection is answered as it is.
 */
export function pageRedirect(deps: AppDeps, log: (message: string) => void): MiddlewareHandler {
  const settings = deps.flash ?? DEFAULT_FLASH;
  return async (c, next) => {
    await next();
    const status = c.res.status;
    if ((status !== 401 && status !== 403) || !isPageRequest(c)) return;
    if (!(c.res.headers.get('content-type') ?? '').includes('application/problem+json')) return;
    const detail = String(((await c.res.clone().json()) as { detail?: unknown }).detail ?? '');
    try {
      const token = await issueFlash(deps.store, settings, deps.now(), {
        code: codeOf(status, detail),
        message: detail,
        type: 'error',
      });
      c.res = new Response(null, { status: 302, headers: { location: loginRedirect(settings.loginLocation, token) } });
    } catch (err) {
      log(`flash: cannot store the message of a redirect: ${(err as Error).message}`);
    }
  };
}
