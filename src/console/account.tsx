import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { callerOf } from '../server/access/gate.js';
import { verifyChallenge } from '../server/challenge.js';
import { callApi } from './api.js';
import { challengeSiteKey, type ConsoleContext, pageHandler, render } from './frame.js';
import { CsrfForm, FormError } from './layout.js';
import { consoleRoute } from './pages.js';
import { CSRF_FIELD, clearCookie, csrfMatches, SESSION_COOKIE, sessionToken, setStrictCookie } from './session.js';
import { SESSION_TTL_MS } from '../server/auth/sessions.js';
import { RESULT_COOKIE } from './kit.js';

/** Form posts of the account pages: small (an email, a password, a name, a token). */
const FORM_LIMIT = 16 * 1024;
const CSRF_REFUSED = 'The form has expired or did not come from this site; reload the page and send it again.';

/** The form fields as strings (a file or a missing field is empty). */
async function fields(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : '']));
}

function Challenge({ siteKey }: { siteKey?: string }) {
  return siteKey ? <div class="cf-turnstile" data-sitekey={siteKey} /> : null;
}

/** The bot challenge's verdict on a form (true when no challenge is configured). */
async function challengePassed(ctx: ConsoleContext, form: Record<string, string>, stop: AbortSignal) {
  if (!challengeSiteKey(ctx.deps) || !ctx.deps.challenge) return true;
  const token = form['cf-turnstile-response'];
  return Boolean(token) && (await verifyChallenge(ctx.deps.challenge, token, stop));
}

function CredentialsForm(props: {
  action: string;
  csrf: string;
  submit: string;
  email?: string;
  withName?: boolean;
  siteKey?: string;
}) {
  return (
    <CsrfForm action={props.action} csrf={props.csrf} class="stack narrow">
      {props.withName ? (
        <>
          <label for="name">Name (optional)</label>
          <input id="name" name="name" autocomplete="name" maxlength={100} />
        </>
      ) : null}
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="email" required value={props.email ?? ''} />
      <label for="password">Password</label>
      <input
        id="password"
        name="password"
        type="password"
        required
        autocomplete={props.withName ? 'new-password' : 'current-password'}
      />
      <Challenge siteKey={props.siteKey} />
      <button type="submit">{props.submit}</button>
    </CsrfForm>
  );
}

/** Signs the browser in with an API answer's session token and sends it on to the console. */
function signedIn(c: Context, token: string): Response {
  clearCookie(c, RESULT_COOKIE);
  setStrictCookie(c, SESSION_COOKIE, token, Math.floor(SESSION_TTL_MS / 1000));
  return c.redirect('/console', 303);
}

/** `/`, `/login`, `/signup`, `/logout`, `/support` and the console's home page. */
export function registerAccountPages(app: OpenAPIHono, ctx: ConsoleContext): void {
  const siteKey = challengeSiteKey(ctx.deps);
  consoleRoute(app, { method: 'get', path: '/', access: 'public', summary: 'The web console' }, (c) =>
    c.redirect(callerOf(c).user ? '/console' : '/login', 302),
  );

  const loginPage = { title: 'Sign in', path: '/login', challenge: true };
  const loginForm = (c: Context, error: string | null, email = '', status: 200 | 401 | 403 | 429 = 200) =>
    render(
      c,
      ctx,
      loginPage,
      (f) => (
        <>
          <FormError message={error} />
          <CredentialsForm action="/login" csrf={f.csrf} submit="Sign in" email={email} siteKey={siteKey} />
          <p>
            No account yet? <a href="/signup">Create one</a>.
          </p>
        </>
      ),
      status,
    );
  consoleRoute(
    app,
    { method: 'get', path: '/login', access: 'public', summary: 'Console: the sign-in form' },
    pageHandler(ctx, loginPage, (c, f) => {
      if (callerOf(c).user)
        return (
          <p>
            You are signed in. <a href="/console">Open the console</a>.
          </p>
        );
      return (
        <>
          <CredentialsForm action="/login" csrf={f.csrf} submit="Sign in" siteKey={siteKey} />
          <p>
            No account yet? <a href="/signup">Create one</a>.
          </p>
        </>
      );
    }),
  );
  // Counted here, before anything is done (a refused form too); the sign-in route it calls is then
  // not counted a second time, though its own throttles apply.
  consoleRoute(
    app,
    { method: 'post', path: '/login', access: 'public', bodyLimit: FORM_LIMIT, summary: 'Console: sign in' },
    async (c) => {
      const form = await fields(c);
      if (!csrfMatches(c, form[CSRF_FIELD])) return loginForm(c, CSRF_REFUSED, form.email, 403);
      if (!(await challengePassed(ctx, form, c.req.raw.signal)))
        return loginForm(c, 'The bot challenge failed; try again.', form.email, 403);
      const answer = await callApi<{ token: string }>(c, ctx, '/api/auth/sign-in/email', {
        method: 'POST',
        counted: true,
        body: { email: form.email ?? '', password: form.password ?? '' },
      });
      if (answer.ok) return signedIn(c, answer.body.token);
      const status = answer.status === 429 || answer.status === 403 ? answer.status : 401;
      return loginForm(c, answer.message, form.email, status);
    },
  );

  const signupPage = { title: 'Create an account', path: '/signup', challenge: true };
  const signupForm = (c: Context, error: string | null, email = '', status: 200 | 403 | 409 | 422 | 429 = 200) =>
    render(
      c,
      ctx,
      signupPage,
      (f) => (
        <>
          <FormError message={error} />
          <CredentialsForm
            action="/signup"
            csrf={f.csrf}
            submit="Create account"
            email={email}
            withName
            siteKey={siteKey}
          />
          <p>
            Have an account? <a href="/login">Sign in</a>.
          </p>
        </>
      ),
      status,
    );
  consoleRoute(
    app,
    { method: 'get', path: '/signup', access: 'public', summary: 'Console: the sign-up form' },
    pageHandler(ctx, signupPage, (_c, f) => (
      <>
        <CredentialsForm action="/signup" csrf={f.csrf} submit="Create account" withName siteKey={siteKey} />
        <p>
          Have an account? <a href="/login">Sign in</a>.
        </p>
      </>
    )),
  );
  consoleRoute(
    app,
    { method: 'post', path: '/signup', access: 'public', bodyLimit: FORM_LIMIT, summary: 'Console: sign up' },
    async (c) => {
      const form = await fields(c);
      if (!csrfMatches(c, form[CSRF_FIELD])) return signupForm(c, CSRF_REFUSED, form.email, 403);
      if (!(await challengePassed(ctx, form, c.req.raw.signal)))
        return signupForm(c, 'The bot challenge failed; try again.', form.email, 403);
      const answer = await callApi<{ token: string }>(c, ctx, '/api/auth/sign-up/email', {
        method: 'POST',
        counted: true,
        body: { email: form.email ?? '', password: form.password ?? '', ...(form.name ? { name: form.name } : {}) },
      });
      if (answer.ok) return signedIn(c, answer.body.token);
      const status = ([409, 422, 429] as const).find((s) => s === answer.status) ?? 422;
      return signupForm(c, answer.message, form.email, status);
    },
  );

  consoleRoute(
    app,
    {
      method: 'post',
      path: '/logout',
      access: 'public',
      bodyLimit: FORM_LIMIT,
      summary: 'Console: sign out',
    },
    async (c) => {
      const form = await fields(c);
      if (!csrfMatches(c, form[CSRF_FIELD])) return c.text(CSRF_REFUSED, 403);
      const token = sessionToken(c);
      if (token) await callApi(c, ctx, '/api/auth/sign-out', { method: 'POST', token, counted: true });
      clearCookie(c, SESSION_COOKIE);
      clearCookie(c, RESULT_COOKIE);
      return c.redirect('/login', 303);
    },
  );

  consoleRoute(
    app,
    { method: 'get', path: '/support', access: 'public', summary: 'Console: where to get help' },
    pageHandler(ctx, { title: 'Support', path: '/support' }, () => (
      <p>
        This server is run by its administrators: ask them to unlock an account, lift a ban or enable API access. They
        see the account under Admin, Users.
      </p>
    )),
  );

  consoleRoute(
    app,
    { method: 'get', path: '/console', access: 'session', summary: "Console: the signed-in user's home page" },
    pageHandler(ctx, { title: 'Console', path: '/console' }, (c, f) => {
      const caller = callerOf(c);
      return (
        <>
          <p>
            Signed in as {caller.user?.email}, tier {caller.tier.name}.
          </p>
          <ul class="cards">
            {f.nav.map((p) => (
              <li>
                <a href={p.path}>{p.title}</a>
              </li>
            ))}
          </ul>
        </>
      );
    }),
  );
}
