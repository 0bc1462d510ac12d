import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { isConsolePath } from './paths.js';

/** The browser session: the same `flcs_` token the API takes as a bearer token, in an HttpOnly cookie. */
export const SESSION_COOKIE = 'flc_session';
/** A signed-out browser's random value, the seed of its CSRF token until it signs in. */
const PRESESSION_COOKIE = 'flc_presession';
/** A one-time message carried across the redirect that removes `flash=` from the address. */
export const FLASH_COOKIE = 'flc_flash';
/** The hidden field every state-changing form carries. */
export const CSRF_FIELD = '_csrf';

/** Whether the browser reached the server over TLS (directly, or through a proxy that says so). */
const overTls = (c: Context) =>
  new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';

/** Sets an HttpOnly, SameSite=Strict cookie on the whole site; Secure when served over TLS. */
export function setStrictCookie(c: Context, name: string, value: string, maxAgeSeconds?: number): void {
  setCookie(c, name, value, {
    path: '/',
    httpOnly: true,
    sameSite: 'Strict',
    secure: overTls(c),
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  });
}

export function clearCookie(c: Context, name: string): void {
  deleteCookie(c, name, { path: '/', secure: overTls(c) });
}

/** The session token of the browser's cookie, if it carries one. */
export const sessionToken = (c: Context): string | undefined => getCookie(c, SESSION_COOKIE) || undefined;

/**
 * The browser's CSRF token: a digest of its session token (or, signed out, of its pre-session
 * value), so it changes at every sign-in and cannot be worked out without the HttpOnly cookie.
 */
export function csrfToken(c: Context): string {
  let seed = sessionToken(c);
  if (!seed) {
    seed = getCookie(c, PRESESSION_COOKIE) || c.get('presession');
    if (!seed) {
      seed = randomBytes(32).toString('base64url');
      c.set('presession', seed);
      setStrictCookie(c, PRESESSION_COOKIE, seed);
    }
  }
  return createHash('sha256').update(`flc-console-csrf|${seed}`).digest('base64url');
}

/** Whether a submitted form carries this browser's CSRF token (compared in constant time). */
export function csrfMatches(c: Context, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const expected = Buffer.from(csrfToken(c));
  const given = Buffer.from(submitted);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * On console paths: hono's CSRF check (the request's origin must be this server's) on every
 * state-changing request, and the session cookie presented to the access gate as the bearer
 * token it is, so pages go through the same gate, rate limits and usage as the API. The API
 * itself never reads the cookie, so no cross-site form can act through it.
 */
export function consoleSession(): MiddlewareHandler {
  const sameOrigin = csrf();
  return async (c, next) => {
    if (!isConsolePath(c.req.path)) return next();
    const token = sessionToken(c);
    // Set on the request's own headers: a new Request made from it would take its body as a
    // stream, which then holds the socket's data from the body limit's reader (a form over a few
    // hundred KiB hung until the server's request timeout).
    if (token && !c.req.header('authorization')) c.req.raw.headers.set('authorization', `Bearer ${token}`);
    return sameOrigin(c, next);
  };
}

declare module 'hono' {
  interface ContextVariableMap {
    presession: string;
  }
}
