import { describe, expect, test } from 'vitest';
import { openStore } from '../../src/server/store/open.js';
import { hashPassword } from '../../src/server/auth/password.js';
import { consoleApp, consoleBrowser } from '../support/console-app.js';

// A form post's outcome (an API key's text, shown once) rides in the `flc_result` cookie to the
// next page. It belongs to the session that made it: another account signed in on the same
// browser (a shared machine, a sign-out before the page was seen) must never be shown it.
const store = await openStore(':memory:');
for (const tier of ['anonymous', 'free'])
  await store.updateConfigRow('tiers', { tier_name: tier }, { rate_limit: 0 }, new Date().toISOString());
const app = consoleApp(store);
const PASSWORD = 'correct horse battery 9';
const password = await hashPassword(PASSWORD);
for (const email of ['alice@example.com', 'bob@example.com'])
  await store.createUser({ email, name: null, role: 'user', tier: 'free', password });

/** One browser: one cookie jar, whoever signs in on it. */
function browser() {
  const b = consoleBrowser(app);
  return {
    ...b,
    page: async (path: string) => (await b.get(path)).text(),
    signIn: async (email: string) => {
      const res = await b.post('/login', { email, password: PASSWORD, _csrf: await b.csrf('/login') });
      expect(res.status).toBe(303);
    },
  };
}

const secretOf = (html: string) => /id="secret"[^>]*value="([^"]+)"/.exec(html)?.[1];

describe('console: a form outcome is shown only to the session that made it', () => {
  test('a key created, then signed out before its page: the next account never sees it', async () => {
    const b = browser();
    await b.signIn('alice@example.com');
    const made = await b.post('/console/account/keys', {
      _csrf: await b.csrf('/console/account'),
      name: 'alice key',
      scopes: 'compile',
      expiresInDays: '30',
    });
    expect(made.status).toBe(303);
    // The CSRF token from a page that does not show outcomes, so the key's is still waiting.
    const csrf = await b.csrf('/console');
    expect(b.jar.has('flc_result')).toBe(true);
    const out = await b.post('/logout', { _csrf: csrf });
    expect(out.status).toBe(303);
    await b.signIn('bob@example.com');
    const html = await b.page('/console/account');
    expect(html).toContain('bob@example.com');
    expect(secretOf(html)).toBeUndefined();
  });

  test("another session's outcome cookie, carried into a browser, shows nothing there", async () => {
    const alice = browser();
    await alice.signIn('alice@example.com');
    const made = await alice.post('/console/account/keys', {
      _csrf: await alice.csrf('/console/account'),
      name: 'carried key',
      scopes: 'compile',
      expiresInDays: '30',
    });
    expect(made.status).toBe(303);
    const carried = alice.jar.get('flc_result');
    expect(carried).toBeDefined();
    const bob = browser();
    await bob.signIn('bob@example.com');
    bob.jar.set('flc_result', carried ?? '');
    expect(secretOf(await bob.page('/console/account'))).toBeUndefined();
  });

  test('the session that made it still sees its key once', async () => {
    const b = browser();
    await b.signIn('alice@example.com');
    await b.post('/console/account/keys', {
      _csrf: await b.csrf('/console/account'),
      name: 'own key',
      scopes: 'compile',
      expiresInDays: '30',
    });
    const first = await b.page('/console/account');
    expect(secretOf(first)?.length ?? 0).toBeGreaterThan(20);
    expect(secretOf(await b.page('/console/account'))).toBeUndefined();
  });
});
