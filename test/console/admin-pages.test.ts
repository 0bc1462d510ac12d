import { describe, expect, test } from 'vitest';
import { openStore } from '../../src/server/store/open.js';
import { hashPassword } from '../../src/server/auth/password.js';
import { consoleApp, consoleBrowser } from '../support/console-app.js';
import { ADMIN_NAV } from '../../src/console/admin.js';
import { callApi } from '../../src/console/api.js';
import type { ConsoleContext } from '../../src/console/frame.js';
import type { Context } from 'hono';

// The account, jobs and admin pages in-process (fast, no browser); test/console/admin.e2e.test.ts
// drives the same pages in Chromium against a real `flc serve`.
const store = await openStore(':memory:');
await store.updateConfigRow('tiers', { tier_name: 'anonymous' }, { rate_limit: 0 }, new Date().toISOString());
await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 0 }, new Date().toISOString());
const app = consoleApp(store);
const PASSWORD = 'correct horse battery 9';

async function account(email: string, role: 'admin' | 'user', roles: string[] = []) {
  const user = await store.createUser({
    email,
    name: null,
    role,
    tier: role === 'admin' ? 'admin' : 'free',
    password: await hashPassword(PASSWORD),
  });
  for (const r of roles) await store.assignRole(user.id, r, 'test', new Date().toISOString());
  return user;
}
await account('root@example.com', 'admin', ['super-admin']);
// An editor: an administrator with some permissions (audit and configuration) but not the others.
await store.createConfigRow(
  'roles',
  {
    role_name: 'config-editor',
    display_name: 'Config editor',
    description: 'Audit and configuration',
    permissions: ['audit:read', 'config:read', 'config:write'],
  },
  new Date().toISOString(),
);
await account('editor@example.com', 'admin', ['config-editor']);
await account('user@example.com', 'user');

/** A browser: keeps its cookies, sends its origin on posts, never follows redirects. */
function browser() {
  const b = consoleBrowser(app);
  return {
    ...b,
    /** GET a page: its status, its HTML and where it redirects. */
    page: async (path: string) => {
      const res = await b.get(path);
      return { status: res.status, html: await res.text(), location: res.headers.get('location') };
    },
  };
}

async function signedIn(email: string) {
  const b = browser();
  const csrf = await b.csrf('/login');
  const res = await b.post('/login', { email, password: PASSWORD, _csrf: csrf });
  expect(res.status).toBe(303);
  return b;
}

describe('console: account, jobs and admin pages', () => {
  test('an API key is shown once: on the page after creating it, and never on a reload', async () => {
    const b = await signedIn('user@example.com');
    const csrf = await b.csrf('/console/account');
    const made = await b.post('/console/account/keys', {
      _csrf: csrf,
      name: 'ci key',
      scopes: ['compile'],
      expiresInDays: '30',
    });
    expect(made.status).toBe(303);
    expect(made.headers.get('location')).toBe('/console/account');
    const shown = await b.page('/console/account');
    const secret = /id="secret"[^>]*value="([^"]+)"/.exec(shown.html)?.[1] ?? '';
    expect(secret.length).toBeGreaterThan(20);
    expect(shown.html).toContain('ci key');
    // The key works against the API as a bearer token.
    const keys = await app.request('/api/keys', { headers: { authorization: `Bearer ${secret}` } });
    expect(keys.status).toBe(200);
    const again = await b.page('/console/account');
    expect(again.html).toContain('ci key');
    expect(again.html).not.toContain(secret);
    expect(again.html).not.toContain('id="secret"');
    // Revoke, through the same route the API serves.
    const id = ((await keys.json()) as { keys: { id: string }[] }).keys[0].id;
    expect((await b.post(`/console/account/keys/${id}/revoke`, { _csrf: csrf })).status).toBe(303);
    expect((await b.page('/console/account')).html).toContain('Revoked the key.');
    expect((await app.request('/api/keys', { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
  });

  test('an id of `.` or `..` in an in-process API call names no other route: refused before the call', async () => {
    let called = 0;
    const ctx = { app: { request: () => (called++, new Response('{}')) } } as unknown as ConsoleContext;
    const c = {
      req: { url: 'http://localhost/console/account', header: () => undefined },
      env: {},
    } as unknown as Context;
    for (const id of ['..', '.', '%2e%2e', '%2E', '.%2e'])
      expect(await callApi(c, ctx, `/api/keys/${id}`, { method: 'DELETE' })).toEqual({
        ok: false,
        status: 404,
        message: 'No such item',
      });
    expect(called).toBe(0);
    expect((await callApi(c, ctx, '/api/keys/k1..2', { method: 'DELETE' })).ok).toBe(true);
    expect(called).toBe(1);
  });

  test('a form post without the CSRF token changes nothing', async () => {
    const b = await signedIn('user@example.com');
    const before = (await store.apiKeys((await store.userByEmail('user@example.com'))!.id)).length;
    const forged = await b.post('/console/account/keys', { name: 'forged', scopes: ['compile'] });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('did not come from this site');
    const page = await b.page('/console/account');
    expect((await store.apiKeys((await store.userByEmail('user@example.com'))!.id)).length).toBe(before);
    expect(page.html).not.toContain('id="secret"');
  });

  test('saved rule sets: create, edit, delete', async () => {
    const b = await signedIn('user@example.com');
    const csrf = await b.csrf('/console/account/rule-sets');
    await b.post('/console/account/rule-sets', { _csrf: csrf, name: 'mine', rules: '||a.example^\n\n||b.example^' });
    const list = await b.page('/console/account/rule-sets');
    expect(list.html).toContain('Saved the rule set mine.');
    const id = /\?edit=([\w-]+)/.exec(list.html)?.[1] ?? '';
    const edit = await b.page(`/console/account/rule-sets?edit=${id}`);
    expect(edit.html).toContain('||a.example^\n||b.example^');
    await b.post(`/console/account/rule-sets/${id}`, {
      _csrf: csrf,
      name: 'renamed',
      description: '',
      rules: '||c.example^',
    });
    const changed = await b.page('/console/account/rule-sets');
    expect(changed.html).toContain('renamed');
    await b.post(`/console/account/rule-sets/${id}/delete`, { _csrf: csrf });
    const gone = await b.page('/console/account/rule-sets');
    expect(gone.html).toContain('No saved rule sets yet.');
  });

  test('an editor sees and opens the pages its permissions allow, and no others', async () => {
    const b = await signedIn('editor@example.com');
    const home = await b.page('/console');
    const allowed = ['/console/admin/audit', '/console/admin/config'];
    for (const p of ADMIN_NAV) {
      const listed = home.html.includes(`href="${p.path}"`);
      expect(listed, p.path).toBe(allowed.includes(p.path));
      const res = await b.get(p.path);
      expect(res.status, p.path).toBe(allowed.includes(p.path) ? 200 : 302);
      if (!allowed.includes(p.path)) expect(res.headers.get('location')).toMatch(/^\/login\?flash=/);
    }
    // A plain user sees no admin page at all.
    const user = await signedIn('user@example.com');
    const userHome = await user.page('/console');
    for (const p of ADMIN_NAV) expect(userHome.html).not.toContain(`href="${p.path}"`);
    // The super-admin sees them all, and each renders.
    const root = await signedIn('root@example.com');
    const rootHome = await root.page('/console');
    for (const p of ADMIN_NAV) {
      expect(rootHome.html).toContain(`href="${p.path}"`);
      const page = await root.page(p.path);
      expect(page.status, p.path).toBe(200);
      expect(page.html, p.path).not.toContain('class="form-error"');
    }
  });

  test('an import shows its diff first and applies only when confirmed; a snapshot reverts it', async () => {
    const b = await signedIn('editor@example.com');
    const csrf = await b.csrf('/console/admin/config');
    const exported = await b.get('/console/admin/config/export?format=json');
    expect(exported.status).toBe(200);
    const bundle = JSON.parse(await exported.text()) as { announcements: Record<string, unknown>[] };
    bundle.announcements.push({
      title: 'Imported notice',
      body: 'from a bundle',
      severity: 'info',
      is_active: true,
      active_from: null,
      active_until: null,
    });
    const dry = await b.post('/console/admin/config/import', {
      _csrf: csrf,
      format: 'json',
      bundle: JSON.stringify(bundle),
    });
    expect(dry.status).toBe(200);
    const diff = await dry.text();
    expect(diff).toContain('This is a dry run');
    expect(diff).toContain('Imported notice');
    expect(await store.configRows('announcements')).toHaveLength(0);
    const applyCsrf = /name="_csrf" value="([^"]+)"/.exec(diff)?.[1] ?? '';
    const applyBundle = /<textarea id="apply-bundle"[^>]*>([\s\S]*?)<\/textarea>/.exec(diff)?.[1] ?? '';
    const decoded = applyBundle
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    const applied = await b.post('/console/admin/config/apply', { _csrf: applyCsrf, format: 'json', bundle: decoded });
    expect(applied.status).toBe(303);
    const after = await b.page('/console/admin/config');
    expect(after.html).toContain('Applied the import');
    expect((await store.configRows('announcements')).map((a) => a.title)).toEqual(['Imported notice']);
    // The banner shows, and the snapshot taken before the import reverts it.
    expect(after.html).toContain('Imported notice');
    const snapshot = /config\/snapshots\/(\d+)\/revert/.exec(after.html)?.[1];
    await b.post(`/console/admin/config/snapshots/${snapshot}/revert`, { _csrf: applyCsrf });
    expect(await store.configRows('announcements')).toHaveLength(0);
  });

  test('admin forms act through the API routes, whose own permissions apply', async () => {
    const root = await signedIn('root@example.com');
    const csrf = await root.csrf('/console/admin/users');
    const user = (await store.userByEmail('user@example.com'))!;
    await root.post(`/console/admin/users/${user.id}/ban`, { _csrf: csrf, reason: 'spam' });
    expect((await root.page('/console/admin/users')).html).toContain('Banned the account.');
    expect((await store.userById(user.id))?.banned).toBe(true);
    await root.post(`/console/admin/users/${user.id}/unban`, { _csrf: csrf });
    expect((await store.userById(user.id))?.banned).toBe(false);
    await root.post(`/console/admin/users/${user.id}`, { _csrf: csrf, role: 'user', tier: 'pro', apiDisabled: '1' });
    const changed = await store.userById(user.id);
    expect([changed?.tier, changed?.apiDisabled]).toEqual(['pro', true]);
    await root.post(`/console/admin/users/${user.id}`, { _csrf: csrf, role: 'user', tier: 'free' });
    // The audit log records the console's changes as the API's.
    const audit = await root.page('/console/admin/audit?action=user.ban');
    expect(audit.html).toContain('1 entries match.');
    // Flags, announcements, roles and endpoint overrides, each through its route.
    await root.post('/console/admin/flags', {
      _csrf: csrf,
      key: 'new-ui',
      description: 'the new UI',
      variations: '{"on": true, "off": false}',
      default_variation: 'off',
    });
    expect((await store.flag('new-ui'))?.enabled).toBe(false);
    await root.post('/console/admin/flags/new-ui/toggle', { _csrf: csrf, enabled: '1' });
    expect((await store.flag('new-ui'))?.enabled).toBe(true);
    const badFlag = await root.post('/console/admin/flags', {
      _csrf: csrf,
      key: 'x',
      variations: '{',
      default_variation: 'a',
    });
    expect(badFlag.status).toBe(303);
    expect((await root.page('/console/admin/flags')).html).toContain('The variations are not JSON');
    await root.post('/console/admin/announcements', {
      _csrf: csrf,
      title: 'Hello',
      body: 'world',
      severity: 'info',
      active_from: '2020-01-01T00:00',
    });
    const [hello] = await store.configRows('announcements', { title: 'Hello' });
    expect(hello.active_from).toBe('2020-01-01T00:00:00.000Z');
    await root.post(`/console/admin/announcements/${hello.id}/toggle`, { _csrf: csrf, is_active: '0' });
    expect(Number((await store.configRows('announcements', { title: 'Hello' }))[0].is_active)).toBe(0);
    await root.post(`/console/admin/announcements/${hello.id}/delete`, { _csrf: csrf });
    expect(await store.configRows('announcements', { title: 'Hello' })).toHaveLength(0);
    await root.post('/console/admin/roles', {
      _csrf: csrf,
      role_name: 'auditor',
      display_name: 'Auditor',
      permissions: ['audit:read', 'admin:read'],
    });
    const editorId = (await store.userByEmail('editor@example.com'))!.id;
    const [auditor] = await store.configRows('roles', { role_name: 'auditor' });
    await root.post(`/console/admin/roles/${auditor.id}`, {
      _csrf: csrf,
      display_name: 'Auditor',
      description: 'reads the log',
      permissions: ['audit:read'],
      is_active: '1',
    });
    expect((await store.configRows('roles', { role_name: 'auditor' }))[0].description).toBe('reads the log');
    await root.post('/console/admin/roles/assign', { _csrf: csrf, identity_user_id: editorId, role_name: 'auditor' });
    console.log(
      /<div class="[^"]*" role="(?:status|alert)">[\s\S]*?<\/div>/.exec(
        (await root.page('/console/admin/roles')).html,
      )?.[0],
    );
    expect((await root.page('/console/admin/roles')).html).toContain('Revoke auditor from editor@example.com');
    await root.post('/console/admin/roles/revoke', { _csrf: csrf, identity_user_id: editorId, role_name: 'auditor' });
    expect((await root.page('/console/admin/roles')).html).not.toContain('Revoke auditor from editor@example.com');
    await root.post('/console/admin/access/endpoints', {
      _csrf: csrf,
      path_pattern: '/api/compile',
      method: 'POST',
      required_tier: 'pro',
    });
    expect((await store.configRows('endpoints')).map((e) => e.path_pattern)).toEqual(['/api/compile']);
    await root.post('/console/admin/access/tiers/pro', {
      _csrf: csrf,
      display_name: 'Pro plus',
      rate_limit: '120',
      is_active: '1',
    });
    expect((await store.configRows('tiers', { tier_name: 'pro' }))[0].display_name).toBe('Pro plus');
    // The read-only views with their parameters.
    for (const path of [`/console/admin/usage?user=${user.id}&days=7`, '/console/admin/storage?table=users']) {
      const page = await root.page(path);
      expect(page.status, path).toBe(200);
      expect(page.html, path).not.toContain('class="form-error"');
    }
    // An editor may open the config page but not ban: the users route refuses the console post itself.
    const editor = await signedIn('editor@example.com');
    const editorCsrf = await editor.csrf('/console/admin/config');
    const refused = await editor.post(`/console/admin/users/${user.id}/ban`, { _csrf: editorCsrf });
    expect(refused.status).toBe(403);
    expect((await store.userById(user.id))?.banned).toBe(false);
  });
});
