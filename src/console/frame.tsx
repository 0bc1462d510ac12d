import type { Context, Handler } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Child } from 'hono/jsx';
import { getCookie } from 'hono/cookie';
import { raw } from 'hono/html';
import type { AppDeps } from '../server/deps.js';
import { callerOf } from '../server/access/gate.js';
import { isCurrent } from '../server/routes/admin-system/announcements.js';
import { resolveErrorPayload, type ResolvedError } from '../server/error-codes.js';
import { DEFAULT_FLASH, issueFlash, takeFlash } from '../server/flash/flash-messages.js';
import type { AssetUrls } from './assets.js';
import { type Banner, type Frame, Layout } from './layout.js';
import { type ConsolePage, navFor } from './pages.js';
import { clearCookie, csrfToken, FLASH_COOKIE, setStrictCookie } from './session.js';

/** The bot-challenge vendor's widget script (Cloudflare Turnstile, whose verify URL the server uses). */
export const CHALLENGE_ORIGIN = 'https://challenges.cloudflare.com';
const CHALLENGE_SCRIPT = `${CHALLENGE_ORIGIN}/turnstile/v0/api.js`;

/** What every console handler works with: the app's dependencies, the app itself, its pages and files. */
export interface ConsoleContext {
  deps: AppDeps;
  /** The server app, which the console calls in-process for the routes it is a client of (sign-in, sign-up). */
  app: OpenAPIHono;
  pages: ConsolePage[];
  assets: AssetUrls;
  log: (message: string) => void;
}

/** The site key of the bot challenge when one is configured (secret and site key both set). */
export const challengeSiteKey = (deps: AppDeps) =>
  deps.challenge?.secretKey && deps.challenge.siteKey ? deps.challenge.siteKey : undefined;

async function banners(deps: AppDeps, log: (m: string) => void): Promise<Banner[]> {
  try {
    const now = deps.now();
    const rows = await deps.store.configRows('announcements');
    return rows
      .filter((a) => isCurrent(a, now))
      .map((a) => ({
        title: String(a.title ?? ''),
        body: String(a.body ?? ''),
        severity: String(a.severity ?? 'info'),
      }));
  } catch (err) {
    log(`console: cannot read the announcements: ${(err as Error).message}`);
    return [];
  }
}

/**
 * The redirect contract's browser half: a `flash=<token>` is taken from the store once, and a
 * legacy `error=<CODE>` read; either is kept for the next page in a new one-time token (an
 * HttpOnly cookie names it) and the browser is sent to the same address without the parameter.
 * So the message shows once, the address bar never holds a token, and a reload shows nothing.
 */
async function exchangeNotice(c: Context, deps: AppDeps): Promise<Response | null> {
  const url = new URL(c.req.url);
  const flash = url.searchParams.get('flash');
  const legacy = url.searchParams.get('error');
  if (flash === null && legacy === null) return null;
  url.searchParams.delete('flash');
  url.searchParams.delete('error');
  const settings = deps.flash ?? DEFAULT_FLASH;
  const taken = flash ? await takeFlash(deps.store, flash, deps.now()) : null;
  const message = taken ?? (legacy ? { code: legacy.slice(0, 128), message: '', type: 'error' } : null);
  if (message) {
    const token = await issueFlash(deps.store, settings, deps.now(), message);
    setStrictCookie(c, FLASH_COOKIE, token, Math.ceil(settings.lifetimeMs / 1000));
  }
  return c.redirect(`${url.pathname}${url.search}`, 303);
}

/** The one-time message the previous redirect left, resolved through the error-code registry. */
async function takeNotice(c: Context, deps: AppDeps): Promise<ResolvedError | null> {
  const token = getCookie(c, FLASH_COOKIE);
  if (!token) return null;
  clearCookie(c, FLASH_COOKIE);
  const entry = await takeFlash(deps.store, token, deps.now());
  return entry ? resolveErrorPayload({ code: entry.code, message: entry.message }) : null;
}

/** The frame of a page for this request: the caller's navigation, banners, notice and CSRF token. */
export async function frameFor(
  c: Context,
  ctx: ConsoleContext,
  page: { title: string; path: string; challenge?: boolean },
): Promise<Frame> {
  const caller = callerOf(c);
  const [nav, shown, notice] = await Promise.all([
    caller.user ? navFor(ctx.pages, caller) : Promise.resolve([]),
    banners(ctx.deps, ctx.log),
    takeNotice(c, ctx.deps),
  ]);
  return {
    title: page.title,
    path: page.path,
    user: caller.user ? { email: caller.user.email } : null,
    nav,
    csrf: csrfToken(c),
    banners: shown,
    notice,
    assets: ctx.assets,
    challengeScript: page.challenge && challengeSiteKey(ctx.deps) ? CHALLENGE_SCRIPT : undefined,
  };
}

/** Renders a page in the layout. */
export async function render(
  c: Context,
  ctx: ConsoleContext,
  page: { title: string; path: string; challenge?: boolean },
  body: (frame: Frame) => Child | Promise<Child>,
  status: 200 | 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 503 = 200,
): Promise<Response> {
  const frame = await frameFor(c, ctx, page);
  return c.html(
    <>
      {raw('<!doctype html>')}
      <Layout {...frame}>{await body(frame)}</Layout>
    </>,
    status,
  );
}

/** A page handler: first the redirect contract's exchange, then the page. */
export function pageHandler(
  ctx: ConsoleContext,
  page: { title: string; path: string; challenge?: boolean },
  body: (c: Context, frame: Frame) => Child | Promise<Child>,
): Handler {
  return async (c) => (await exchangeNotice(c, ctx.deps)) ?? render(c, ctx, page, (frame) => body(c, frame));
}
