import { describe, expect, test } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { mountConsole } from '../../src/console/index.js';
import { CONSOLE_ORIGIN, consoleApp, consoleBrowser } from '../support/console-app.js';
import { startChallengeVerifier } from '../support/http-server.js';

const store = await openStore(':memory:');
// Every request here comes from one address; the anonymous tier's 10 a minute would refuse the later ones.
await store.updateConfigRow('tiers', { tier_name: 'anonymous' }, { rate_limit: 0 }, new Date().toISOString());
const app = consoleApp(store);

/** A browser: keeps its cookies, sends its origin on posts, never follows redirects. */
const browser = () => consoleBrowser(app);
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

describe('the console framework', () => {
  test('pages carry a strict CSP, no inline script, and the static files are cached for a year', async () => {
    const res = await browser().get('/login');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/ style="/);
    const css = /href="(\/console\/static\/console\.css\?v=\w+)"/.exec(html)?.[1];
    const file = await app.request(css ?? '/missing');
    expect(file.status).toBe(200);
    expect(file.headers.get('cache-control')).toContain('max-age=31536000');
    for (const src of html.matchAll(/<script src="([^"]+)"/g))
      expect((await app.request(src[1])).status, src[1]).toBe(200);
  });

  test('sign-up needs the CSRF token and the same origin, then signs in with an HttpOnly strict cookie', async () => {
    const b = browser();
    const csrf = csrfOf(await (await b.get('/signup')).text());
    const form = { email: 'a@example.com', password: 'correct horse battery 9' };
    expect((await b.post('/signup', form)).status).toBe(403);
    expect((await b.post('/signup', { ...form, _csrf: 'forged' })).status).toBe(403);
    expect((await b.post('/signup', { ...form, _csrf: csrf }, 'http://evil.example')).status).toBe(403);
    expect(b.jar.has('flc_session')).toBe(false);
    const ok = await b.post('/signup', { ...form, _csrf: csrf });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/console');
    const cookie = ok.headers.getSetCookie().find((c) => c.startsWith('flc_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const home = await b.get('/console');
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Signed in as a@example.com');
    // The session is the API's: its token is a bearer token there, but the API never reads the cookie.
    const token = b.jar.get('flc_session');
    const session = await app.request('/api/auth/get-session', { headers: { authorization: `Bearer ${token}` } });
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe('a@example.com');
    const viaCookie = await app.request('/api/auth/get-session', { headers: { cookie: `flc_session=${token}` } });
    expect(((await viaCookie.json()) as { user: unknown }).user).toBeNull();

    // Sign-out: a new CSRF token came with the session; without it nothing happens.
    const signedInCsrf = csrfOf(await home.text().catch(() => '')) || csrfOf(await (await b.get('/console')).text());
    expect(signedInCsrf).not.toBe(csrf);
    expect((await b.post('/logout', {})).status).toBe(403);
    expect((await b.post('/logout', { _csrf: signedInCsrf })).status).toBe(303);
    const after = await app.request('/api/auth/get-session', { headers: { authorization: `Bearer ${token}` } });
    expect(((await after.json()) as { user: unknown }).user).toBeNull();
    expect((await b.get('/console')).status).toBe(302);
  });

  test('a refused page lands on /login; the flash token is taken once and leaves the address', async () => {
    const b = browser();
    const refused = await b.get('/console');
    expect(refused.status).toBe(302);
    const login = refused.headers.get('location') ?? '';
    expect(login).toMatch(/^\/login\?flash=[0-9a-f-]{36}$/);
    const exchanged = await b.get(login);
    expect(exchanged.status).toBe(303);
    expect(exchanged.headers.get('location')).toBe('/login');
    const shown = await (await b.get('/login')).text();
    expect(shown).toContain('Authentication required');
    expect(shown).toContain('href="/login">Sign in</a>');
    expect(await (await b.get('/login')).text()).not.toContain('Authentication required');
    // The token was taken: another browser gets nothing from it.
    const other = browser();
    await other.get(login);
    expect(await (await other.get('/login')).text()).not.toContain('notice');
  });

  test('a legacy error=<CODE> is resolved through the error-code registry with its call to action', async () => {
    const b = browser();
    const res = await b.get('/login?error=ACCOUNT_LOCKED');
    expect(res.headers.get('location')).toBe('/login');
    const html = await (await b.get('/login')).text();
    expect(html).toContain('This account is locked.');
    expect(html).toContain('<a href="/support">Contact support</a>');
    await b.get('/login?error=%3Cscript%3E');
    const unknown = await (await b.get('/login')).text();
    expect(unknown).toContain('Something went wrong.');
    expect(unknown).not.toContain('<script>');
  });

  test('the console routes are in the OpenAPI document, which stays valid', async () => {
    const doc = await (await app.request('/api/openapi.json')).json();
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(doc.paths['/console/compile/runs/{id}/events'].get.tags).toEqual(['Console']);
    expect(doc.paths['/login'].post).toBeDefined();
  });

  test('announcements in force are banners', async () => {
    const at = new Date().toISOString();
    const row = (title: string, is_active: number) => ({
      title,
      body: 'Compiles pause at noon.',
      severity: 'warning',
      is_active,
      created_by: 'test',
    });
    await store.createConfigRow('announcements', row('Maintenance <today>', 1), at);
    await store.createConfigRow('announcements', row('Old news', 0), at);
    const html = await (await browser().get('/login')).text();
    expect(html).toContain('Maintenance &lt;today&gt;');
    expect(html).toContain('banner-warning');
    expect(html).not.toContain('Old news');
  });
});

describe('without the console (flc serve --no-console)', () => {
  test('its paths are not served and the API is unchanged', async () => {
    const bare = createApp({
      store,
      version: '1',
      now: () => Date.now(),
      startedAt: Date.now(),
      makeReader: () => {
        throw new Error('unused');
      },
    });
    for (const path of ['/', '/login', '/console', '/console/static/console.css'])
      expect((await bare.request(path, { headers: { accept: 'text/html' } })).status, path).toBe(404);
    expect((await bare.request('/api/health')).status).toBe(200);
  });
});

describe('with the bot challenge configured', () => {
  test('sign-up shows the widget, the CSP allows the vendor, a post needs a token it accepts', async () => {
    const { createServer } = await import('node:http');
    const verifier = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const ok = new URLSearchParams(body).get('response') === 'human';
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ success: ok }));
      });
    });
    await new Promise<void>((r) => verifier.listen(0, '127.0.0.1', r));
    const port = (verifier.address() as { port: number }).port;
    try {
      const guarded = createApp({
        store,
        version: '1',
        now: () => Date.now(),
        startedAt: Date.now(),
        makeReader: () => {
          throw new Error('unused');
        },
        challenge: { secretKey: 'secret', siteKey: 'site-key', verifyUrl: `http://127.0.0.1:${port}/verify` },
        console: mountConsole,
      });
      const page = await guarded.request('/signup', { headers: { accept: 'text/html' } });
      const html = await page.text();
      expect(html).toContain('data-sitekey="site-key"');
      expect(html).toContain('<script src="https://challenges.cloudflare.com/turnstile/v0/api.js"');
      expect(page.headers.get('content-security-policy')).toContain(
        "script-src 'self' https://challenges.cloudflare.com",
      );
      const cookie = page.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const post = (extra: Record<string, string>) =>
        guarded.request('/signup', {
          method: 'POST',
          headers: { origin: CONSOLE_ORIGIN, cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            _csrf: csrfOf(html),
            email: 'challenged@example.com',
            password: 'correct horse battery 9',
            ...extra,
          }).toString(),
        });
      const refused = await post({ 'cf-turnstile-response': 'robot' });
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('The bot challenge failed');
      expect((await post({})).status).toBe(403);
      expect((await post({ 'cf-turnstile-response': 'human' })).status).toBe(303);
    } finally {
      verifier.close();
    }
  });

  test('a secret without a site key: the compile form asks for a token as POST /api/compile does', async () => {
    const verifier = await startChallengeVerifier('secret');
    try {
      const guarded = createApp({
        store: await openStore(':memory:'),
        version: '1',
        now: () => Date.now(),
        startedAt: Date.now(),
        makeReader: () => {
          throw new Error('unused');
        },
        challenge: { secretKey: 'secret', verifyUrl: `${verifier.url}/verify` },
        console: mountConsole,
      });
      const b = consoleBrowser(guarded);
      const form = { email: 'secret-only@example.com', password: 'correct horse battery 9' };
      expect((await b.post('/signup', { ...form, _csrf: await b.csrf('/signup') })).status).toBe(303);
      const compile = async (extra: Record<string, string>) =>
        b.post('/console/compile', {
          _csrf: await b.csrf('/console/compile'),
          config: JSON.stringify({ name: 'x', sources: [{ source: 'https://lists.example/a.txt' }] }),
          ...extra,
        });
      const bare = await compile({});
      expect(bare.status).toBe(403);
      expect(await bare.text()).toContain('The bot challenge failed');
      expect(verifier.forms).toHaveLength(0);
      expect((await compile({ 'cf-turnstile-response': 'bad' })).status).toBe(403);
      expect((await compile({ 'cf-turnstile-response': 'good' })).status).not.toBe(403);
      expect(verifier.forms).toHaveLength(2);
    } finally {
      await verifier.close();
    }
  });
});
