import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { getCookie } from 'hono/cookie';
import type { z } from '@hono/zod-openapi';
import { DEFAULT_FLASH, issueFlash, takeFlash } from '../server/flash/flash-messages.js';
import type { Access } from '../server/routing/route.js';
import { type ApiAnswer, callApi } from './api.js';
import { type ConsoleContext, render } from './frame.js';
import { FormError } from './layout.js';
import { consoleRoute } from './pages.js';
import { clearCookie, CSRF_FIELD, csrfMatches, sessionToken, setStrictCookie } from './session.js';

/** Form posts of the account, jobs and admin pages: small (names, ids, a configuration bundle). */
export const FORM_LIMIT = 64 * 1024;
/** A configuration bundle pasted or uploaded for import. */
export const BUNDLE_FORM_LIMIT = 1024 * 1024;
export const CSRF_REFUSED = 'The form has expired or did not come from this site; reload the page and send it again.';

/** The form fields as strings; an uploaded file is read as text (a missing field is absent). */
export async function formFields(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody({ all: true });
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    const one = Array.isArray(v) ? v : [v];
    const texts = await Promise.all(one.map((x) => (typeof x === 'string' ? x : x.text())));
    out[k] = texts.join('\n');
  }
  return out;
}

/**
 * What a form post did, shown once by the page it redirects to (post, redirect, get: a reload
 * repeats nothing and shows nothing). Kept in the store's one-time flash table, sealed with a key
 * only the browser's HttpOnly cookie holds, so a secret shown once (an API key) is never stored
 * readable and the message survives a server with several processes.
 */
export interface Outcome {
  ok: boolean;
  text: string;
  /** A secret to show once, with the words to put before it. */
  secret?: { label: string; value: string };
}

/** The cookie naming a form post's outcome and holding the key that opens it. */
export const RESULT_COOKIE = 'flc_result';
const RESULT_CODE = 'CONSOLE_RESULT';

function seal(key: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

function unseal(key: Buffer, sealed: string): string | null {
  try {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/**
 * Whose outcome it is: a digest of the browser's session token. An outcome (an API key's text)
 * is shown only to the session that made it, never to the next account signed in on the browser.
 */
const sessionOf = (c: Context) =>
  createHash('sha256')
    .update(`flc-console-outcome|${sessionToken(c) ?? ''}`)
    .digest('base64url');

/** Answers a form post: keeps its outcome for the next page and sends the browser there (303). */
export async function finish(c: Context, ctx: ConsoleContext, location: string, outcome: Outcome): Promise<Response> {
  const settings = ctx.deps.flash ?? DEFAULT_FLASH;
  const key = randomBytes(32);
  const token = await issueFlash(ctx.deps.store, settings, ctx.deps.now(), {
    code: RESULT_CODE,
    message: seal(key, JSON.stringify({ session: sessionOf(c), outcome })),
    type: outcome.ok ? 'success' : 'error',
  });
  setStrictCookie(c, RESULT_COOKIE, `${token}.${key.toString('base64url')}`, Math.ceil(settings.lifetimeMs / 1000));
  return c.redirect(location, 303);
}

/** The outcome the previous form post left for this page, taken once. */
export async function takeOutcome(c: Context, ctx: ConsoleContext): Promise<Outcome | null> {
  const cookie = getCookie(c, RESULT_COOKIE);
  if (!cookie) return null;
  clearCookie(c, RESULT_COOKIE);
  const [token, key] = cookie.split('.');
  if (!token || !key) return null;
  const entry = await takeFlash(ctx.deps.store, token, ctx.deps.now());
  if (entry?.code !== RESULT_CODE) return null;
  const text = unseal(Buffer.from(key, 'base64url'), entry.message);
  if (text === null) return null;
  try {
    const sealed = JSON.parse(text) as { session?: unknown; outcome?: Outcome };
    return sealed.session === sessionOf(c) && sealed.outcome ? sealed.outcome : null;
  } catch {
    return null;
  }
}

/** The outcome of an API answer: its success text, or the route's own refusal message. */
export function outcomeOf(answer: ApiAnswer<unknown>, done: string): Outcome {
  return answer.ok ? { ok: true, text: done } : { ok: false, text: `${answer.message} (${answer.status})` };
}

/**
 * A console form post: the gate checks `access` (the page's), the CSRF token is checked, then
 * `run` acts, normally through the API route (whose own access rule, audit and gateway apply),
 * and the browser is sent back to `back` with the outcome.
 */
export function formAction(
  app: OpenAPIHono,
  ctx: ConsoleContext,
  r: { path: string; access: Access; summary: string; back: string; bodyLimit?: number; params?: z.ZodObject },
  run: (c: Context, form: Record<string, string>, call: ApiCaller) => Promise<Outcome>,
): void {
  consoleRoute(
    app,
    {
      method: 'post',
      path: r.path,
      access: r.access,
      summary: r.summary,
      bodyLimit: r.bodyLimit ?? FORM_LIMIT,
      ...(r.params ? { params: r.params } : {}),
    },
    async (c) => {
      const form = await formFields(c);
      if (!csrfMatches(c, form[CSRF_FIELD])) return refusedForm(c, ctx, r.back);
      const call: ApiCaller = (path, init) => callApi(c, ctx, path, { ...init, token: sessionToken(c) });
      return finish(c, ctx, r.back, await run(c, form, call));
    },
  );
}

/** The answer to a form post without this browser's CSRF token: 403, nothing done, a way back. */
export function refusedForm(c: Context, ctx: ConsoleContext, back: string): Promise<Response> {
  return render(
    c,
    ctx,
    { title: 'Form refused', path: back },
    () => (
      <>
        <FormError message={CSRF_REFUSED} />
        <p>
          <a href={back}>Back</a>
        </p>
      </>
    ),
    403,
  );
}

/** The server's own API, called as the signed-in browser. */
export type ApiCaller = <T>(
  path: string,
  init: { method: 'GET' | 'POST' | 'DELETE' | 'PATCH' | 'PUT'; body?: unknown; raw?: { text: string; type: string } },
) => Promise<ApiAnswer<T>>;

/** The API as the browser of `c`, for page handlers. */
export const apiOf =
  (c: Context, ctx: ConsoleContext): ApiCaller =>
  (path, init) =>
    callApi(c, ctx, path, { ...init, token: sessionToken(c) });

/** What a form post did, above the page it came back to. */
export function OutcomeNotice({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return null;
  return (
    <div class={outcome.ok ? 'notice banner-success' : 'form-error'} role={outcome.ok ? 'status' : 'alert'}>
      <p>{outcome.text}</p>
      {outcome.secret ? (
        <p>
          <label for="secret">{outcome.secret.label}</label>
          <input id="secret" class="secret" readonly value={outcome.secret.value} />
        </p>
      ) : null}
    </div>
  );
}

/** A cell's text: strings as they are, other values as JSON. */
export const cell = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);

/** A table of records with the given columns (every value escaped as text). */
export function Rows(props: { rows: Record<string, unknown>[]; columns?: string[]; caption: string; empty?: string }) {
  const columns = props.columns ?? [...new Set(props.rows.flatMap((r) => Object.keys(r)))];
  if (props.rows.length === 0) return <p class="muted">{props.empty ?? 'Nothing yet.'}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="muted">{props.caption}</caption>
        <thead>
          <tr>
            {columns.map((col) => (
              <th scope="col">{col}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr>
              {columns.map((col) => (
                <td>{cell(row[col])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A refusal of a read the page needs, said where its content would be. */
export function Refused({ answer }: { answer: { status: number; message: string } }) {
  return (
    <p class="form-error" role="alert">
      {answer.message} ({answer.status})
    </p>
  );
}

/** A one-line id for use in a form's control ids. */
export const domId = (prefix: string, id: unknown) => `${prefix}-${String(id).replace(/[^A-Za-z0-9_-]/g, '_')}`;
