import type { Child } from 'hono/jsx';
import type { ResolvedError } from '../server/error-codes.js';
import { CSRF_FIELD } from './session.js';

/** A page the navigation may show, with whether the caller may open it. */
export interface NavItem {
  path: string;
  title: string;
}

/** An announcement in force, shown as a banner on every page. */
export interface Banner {
  title: string;
  body: string;
  severity: string;
}

/** What every console page shows around its own content. */
export interface Frame {
  title: string;
  /** The path of the page, to mark its navigation entry. */
  path: string;
  user: { email: string } | null;
  nav: NavItem[];
  csrf: string;
  banners: Banner[];
  /** The message of a redirect (a flash token or a legacy `error=` code), shown once. */
  notice: ResolvedError | null;
  /** `/console/static/…` URLs of the stylesheet and scripts (with their digests). */
  assets: { css: string; scripts: string[] };
  /** The bot-challenge vendor's script, when the challenge is configured and the page has a challenged form. */
  challengeScript?: string;
}

const SEVERITY_ROLE: Record<string, 'alert' | 'status'> = { high: 'alert', critical: 'alert' };

function Notice({ notice }: { notice: ResolvedError }) {
  return (
    <div class={`notice notice-${notice.severity}`} role={SEVERITY_ROLE[notice.severity] ?? 'status'} id="notice">
      <p>{notice.message}</p>
      {notice.ctaRoute && notice.ctaLabel ? (
        <p>
          <a href={notice.ctaRoute}>{notice.ctaLabel}</a>
        </p>
      ) : null}
    </div>
  );
}

/** The page around every console view: banners, navigation (only what the caller may open), notice, content. */
export function Layout(props: Frame & { children?: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* htmx must neither add a style element nor evaluate attributes: the CSP allows neither. */}
        <meta
          name="htmx-config"
          content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true}'
        />
        <title>{`${props.title} · flc console`}</title>
        <link rel="stylesheet" href={props.assets.css} />
        {props.assets.scripts.map((src) => (
          <script src={src} defer />
        ))}
        {props.challengeScript ? <script src={props.challengeScript} async defer /> : null}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href={props.user ? '/console' : '/login'}>
            flc console
          </a>
          {props.nav.length > 0 ? (
            <nav aria-label="Console">
              <ul>
                {props.nav.map((item) => (
                  <li>
                    <a href={item.path} aria-current={item.path === props.path ? 'page' : undefined}>
                      {item.title}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          ) : null}
          {props.user ? (
            <form method="post" action="/logout" class="signout">
              <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
              <span class="who">{props.user.email}</span> <button type="submit">Sign out</button>
            </form>
          ) : null}
        </header>
        {props.banners.map((b) => (
          <section class={`banner banner-${b.severity}`} aria-label="Announcement">
            <strong>{b.title}</strong> {b.body}
          </section>
        ))}
        <main id="main">
          {props.notice ? <Notice notice={props.notice} /> : null}
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** A form that changes something: POST, with this browser's CSRF token. */
export function CsrfForm(props: {
  action: string;
  csrf: string;
  children?: Child;
  multipart?: boolean;
  id?: string;
  class?: string;
}) {
  return (
    <form
      method="post"
      action={props.action}
      id={props.id}
      class={props.class}
      enctype={props.multipart ? 'multipart/form-data' : undefined}
    >
      <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
      {props.children}
    </form>
  );
}

/** An error the console answers a form with, above the form again. */
export function FormError({ message }: { message: string | null }) {
  return message ? (
    <p class="form-error" role="alert">
      {message}
    </p>
  ) : null;
}
