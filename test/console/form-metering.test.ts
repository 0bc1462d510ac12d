import { describe, expect, test } from 'vitest';
import { openStore } from '../../src/server/store/open.js';
import { hashPassword } from '../../src/server/auth/password.js';
import { consoleApp } from '../support/console-app.js';

// The sign-in, sign-up and sign-out forms were unmetered (their API route counts the attempt), so a
// form refused before it reached that route (no CSRF token, a failed challenge) was counted by
// nothing: an anonymous client could post them at wire speed, each rendering a page and reading
// the store, past the anonymous tier's limit. They are counted now, once: the route they call is not.
const PASSWORD = 'correct horse battery 9';

async function appWithAnonymousLimit(limit: number) {
  const store = await openStore(':memory:');
  await store.updateConfigRow('tiers', { tier_name: 'anonymous' }, { rate_limit: limit }, new Date().toISOString());
  await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 0 }, new Date().toISOString());
  await store.createUser({
    email: 'user@example.com',
    name: null,
    role: 'user',
    tier: 'free',
    password: await hashPassword(PASSWORD),
  });
  return consoleApp(store);
}

const form = (body: Record<string, string>, cookie = '') => ({
  method: 'POST',
  headers: { origin: 'http://localhost', cookie, 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body).toString(),
});

describe('console account forms and the rate limit', () => {
  test.each(['/login', '/signup', '/logout'])(
    'a %s post refused for its CSRF token counts against the anonymous limit',
    async (path) => {
      const app = await appWithAnonymousLimit(3);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await app.request(path, form({ _csrf: 'forged' }))).status);
      expect(statuses.slice(0, 3)).toEqual([403, 403, 403]);
      expect(statuses.slice(3)).toEqual([429, 429]);
    },
  );

  test('a sign-in through the form is counted once, not once for the form and again for its API route', async () => {
    const app = await appWithAnonymousLimit(2);
    const page = await app.request('/login', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const signedIn = await app.request(
      '/login',
      form({ _csrf: csrf, email: 'user@example.com', password: PASSWORD }, cookie),
    );
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/console');
  });
});
