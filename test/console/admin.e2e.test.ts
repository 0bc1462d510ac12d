import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { hashPassword } from '../../src/server/auth/password.js';
import { openStore } from '../../src/server/store/open.js';
import { ADMIN_NAV } from '../../src/console/admin.js';
import { UNDER_CI } from '../support/ci.js';

// The account, jobs and admin pages of the web console in a real headless Chromium (Debian's
// `chromium`, driven by playwright-core) against a real `flc serve` (the built bin) on a temporary
// SQLite store, as test/console/e2e.test.ts does for sign-in, compile and rules. Skipped with the
// reason without the browser, except under CI, which fails. Screenshots go to test-results/console/.
const CHROMIUM = process.env.FLC_CHROMIUM ?? '/usr/bin/chromium';
const BIN = resolve(import.meta.dirname, '../../bin/run.js');
const SHOTS = resolve(import.meta.dirname, '../../test-results/console');
const missing = existsSync(CHROMIUM) ? null : `${CHROMIUM} is not installed (Debian: apt-get install chromium)`;
if (missing && UNDER_CI) throw new Error(`CI must run the console's browser tests: ${missing}`);

const PASSWORD = 'correct horse battery 9';
/** The permissions of the test's editor: the audit log and the configuration, nothing else. */
const EDITOR_PERMISSIONS = ['audit:read', 'config:read', 'config:write'];
const EDITOR_PAGES = ['/console/admin/audit', '/console/admin/config'];

/** A list the workflow reads after a pause, so its job page sees it run; `/slow.txt` never ends. */
async function listServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.url === '/list.txt') setTimeout(() => res.end('||ads.example.com^\n||cdn.example.org^\n'), 3_000);
    else if (req.url === '/slow.txt') res.writeHead(200).write('||first.example.com^\n');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function startServe(db: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db, '--allow-private-sources'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((ok, fail) => {
    child.stderr?.on('data', (d) => {
      stderr += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (m) ok(m[1]);
    });
    child.once('exit', (code) => fail(new Error(`flc serve exited ${code}: ${stderr}`)));
  });
  return { child, url };
}

describe.skipIf(missing !== null)(
  `console account, jobs and admin pages in Chromium${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let dir: string;
    let serve: { child: ChildProcess; url: string };
    let lists: { server: Server; url: string };
    let browser: Browser;

    /** A new browser (its own cookies) signed in as `email`, at a width (phone: 375). */
    async function signIn(email: string, width = 1000): Promise<Page> {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${serve.url}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${serve.url}/console`);
      return page;
    }
    const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'flc-console-admin-'));
      mkdirSync(SHOTS, { recursive: true });
      const db = join(dir, 'flc.db');
      const store = await openStore(db);
      const at = new Date().toISOString();
      // Every request comes from 127.0.0.1: the per-minute limits would refuse this one busy visitor.
      for (const tier of ['anonymous', 'free', 'pro'])
        await store.updateConfigRow('tiers', { tier_name: tier }, { rate_limit: 0 }, at);
      const add = async (email: string, role: 'admin' | 'user', tier: string, roles: string[]) => {
        const user = await store.createUser({ email, name: null, role, tier, password: await hashPassword(PASSWORD) });
        for (const r of roles) await store.assignRole(user.id, r, 'test', at);
      };
      await store.createConfigRow(
        'roles',
        { role_name: 'config-editor', display_name: 'Config editor', description: '', permissions: EDITOR_PERMISSIONS },
        at,
      );
      await add('root@example.com', 'admin', 'admin', ['super-admin']);
      await add('editor@example.com', 'admin', 'admin', ['config-editor']);
      await add('user@example.com', 'user', 'pro', []);
      await store.close();
      serve = await startServe(db);
      lists = await listServer();
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    });

    afterAll(async () => {
      await browser?.close();
      lists?.server.close();
      if (serve) {
        const exited = new Promise((r) => serve.child.once('exit', r));
        serve.child.kill('SIGTERM');
        await exited;
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test('an API key is shown once, and not on reload', async () => {
      const page = await signIn('user@example.com');
      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Account', exact: true })
        .click();
      await page.getByLabel('Name').fill('deploy key');
      await page.getByLabel('Expires after (days, empty: never)').fill('30');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.waitForURL(`${serve.url}/console/account`);
      const secret = await page.getByLabel('The new API key').inputValue();
      expect(secret.length).toBeGreaterThan(20);
      await shot(page, 'account-key-created');
      // The key works as a bearer token against the API.
      const status = await page.evaluate(
        async (key) => (await fetch('/api/keys', { headers: { authorization: `Bearer ${key}` } })).status,
        secret,
      );
      expect(status).toBe(200);
      await page.reload();
      expect(await page.getByLabel('The new API key').count()).toBe(0);
      expect(await page.content()).not.toContain(secret);
      expect(await page.locator('table').first().textContent()).toContain('deploy key');
      await shot(page, 'account');
      await page.getByRole('button', { name: 'Revoke the key deploy key' }).click();
      await page.waitForURL(`${serve.url}/console/account`);
      expect(await page.locator('main').textContent()).toContain('Revoked the key.');
      await page.context().close();
    });

    /** Starts a workflow through the API with the browser's session (the console lists every job). */
    async function startWorkflow(page: Page, source: string): Promise<{ requestId: string }> {
      const token = (await page.context().cookies()).find((c) => c.name === 'flc_session')?.value ?? '';
      return page.evaluate(
        async ({ token, source }) => {
          const res = await fetch('/api/workflow/compile', {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ configuration: { name: 'Local list', sources: [{ source }] } }),
          });
          return (await res.json()) as { requestId: string };
        },
        { token, source },
      );
    }

    test('a job streams its workflow steps while it runs, then shows its result', async () => {
      const page = await signIn('user@example.com');
      const started = await startWorkflow(page, `${lists.url}/list.txt`);
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Jobs', exact: true }).click();
      await page.getByRole('link', { name: started.requestId }).click();
      await page.waitForURL(`${serve.url}/console/jobs/${started.requestId}`);
      // The page came while the source was still being read: the rest arrives by polling, no reload.
      expect(await page.locator('#job .state').first().textContent()).toMatch(/queued|running/);
      await shot(page, 'job-running');
      let navigations = 0;
      page.on('framenavigated', () => navigations++);
      await expect.poll(() => page.locator('#job .state').first().textContent(), { timeout: 30_000 }).toBe('completed');
      expect(navigations).toBe(0);
      const steps = await page.locator('#job .steps li').allTextContents();
      expect(steps.length).toBeGreaterThan(1);
      for (const s of steps) expect(s).toContain('completed');
      expect(await page.locator('#job').textContent()).toContain('Rules2');
      await shot(page, 'job-completed');
      await page.getByRole('link', { name: 'All jobs' }).click();
      expect(await page.locator('#jobs').textContent()).toContain(started.requestId);
      await shot(page, 'jobs');
      await page.context().close();
    });

    test('cancel stops a running job', async () => {
      const page = await signIn('user@example.com');
      const started = await startWorkflow(page, `${lists.url}/slow.txt`);
      await page.goto(`${serve.url}/console/jobs/${started.requestId}`);
      await expect.poll(() => page.locator('#job .state').first().textContent(), { timeout: 20_000 }).toBe('running');
      await page.getByRole('button', { name: 'Cancel this job' }).click();
      await page.waitForURL(`${serve.url}/console/jobs`);
      expect(await page.locator('main').textContent()).toContain(`Cancelled the job ${started.requestId}.`);
      await page.goto(`${serve.url}/console/jobs/${started.requestId}`);
      expect(await page.locator('#job .state').first().textContent()).toBe('cancelled');
      expect(await page.getByRole('button', { name: 'Cancel this job' }).count()).toBe(0);
      await shot(page, 'job-cancelled');
      await page.context().close();
    });

    test('an editor sees the pages its permissions allow and no others; a forged post is refused', async () => {
      const page = await signIn('editor@example.com');
      const nav = page.getByRole('navigation', { name: 'Console' });
      for (const p of ADMIN_NAV) {
        const links = await nav.locator(`a[href="${p.path}"]`).count();
        expect(links, p.path).toBe(EDITOR_PAGES.includes(p.path) ? 1 : 0);
      }
      for (const p of ADMIN_NAV.filter((q) => !EDITOR_PAGES.includes(q.path))) {
        await page.goto(`${serve.url}${p.path}`);
        expect(new URL(page.url()).pathname, p.path).toBe('/login');
        expect(await page.locator('#notice').count(), p.path).toBe(1);
      }
      await shot(page, 'editor-refused');
      await page.goto(`${serve.url}/console/admin/audit`);
      expect(await page.locator('h1').textContent()).toBe('Audit log');
      // A form post from this site's own page without the CSRF token: refused, nothing applied.
      const status = await page.evaluate(async () => {
        const body = new FormData();
        body.set('format', 'json');
        body.set('bundle', '{}');
        return (await fetch('/console/admin/config/apply', { method: 'POST', body })).status;
      });
      expect(status).toBe(403);
      await page.context().close();
    });

    test('an import shows its diff before it applies, and applying changes the state', async () => {
      const page = await signIn('editor@example.com');
      await page.goto(`${serve.url}/console/admin/config`);
      const exported = await page.evaluate(async () =>
        (await fetch('/console/admin/config/export?format=json')).text(),
      );
      const bundle = JSON.parse(exported) as { announcements: unknown[] };
      bundle.announcements.push({
        title: 'Maintenance tonight',
        body: 'The server restarts at 22:00 UTC.',
        severity: 'warning',
        is_active: true,
        active_from: null,
        active_until: null,
      });
      await page.getByLabel('Bundle (paste)').fill(JSON.stringify(bundle, null, 2));
      await page.getByRole('button', { name: 'Show what it would change' }).click();
      const diff = page.locator('#diff');
      expect(await diff.textContent()).toContain('The import makes 1 changes.');
      expect(await diff.textContent()).toContain('Maintenance tonight');
      // Nothing is applied yet: no banner.
      expect(await page.getByLabel('Announcement').count()).toBe(0);
      await shot(page, 'config-import-diff');
      await page.getByRole('button', { name: 'Apply these changes' }).click();
      await page.waitForURL(`${serve.url}/console/admin/config`);
      expect(await page.locator('main').textContent()).toContain('Applied the import');
      expect(await page.getByLabel('Announcement').textContent()).toContain('Maintenance tonight');
      expect(await page.getByRole('button', { name: /Revert to snapshot/ }).count()).toBeGreaterThan(0);
      await shot(page, 'config-applied');
      await page.context().close();
    });

    test('every account, jobs and admin page renders for the super-admin, on a desktop and a phone', async () => {
      const paths = [
        '/console/account',
        '/console/account/rule-sets',
        '/console/jobs',
        ...ADMIN_NAV.map((p) => p.path),
      ];
      for (const width of [1000, 375]) {
        const page = await signIn('root@example.com', width);
        for (const path of paths) {
          const res = await page.goto(`${serve.url}${path}`);
          expect(res?.status(), path).toBe(200);
          expect(await page.locator('.form-error').count(), path).toBe(0);
          // Readable at phone width: the page itself never scrolls sideways (wide tables scroll in their box).
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          expect(overflow, `${path} at ${width}px`).toBeLessThanOrEqual(0);
          // Every form control has a label (its own, an aria-label, or a wrapping label).
          const unlabelled = await page.evaluate(() =>
            [...document.querySelectorAll('main input:not([type=hidden]), main select, main textarea')]
              .filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute('aria-label'))
              .map((el) => el.outerHTML.slice(0, 80)),
          );
          expect(unlabelled, path).toEqual([]);
          const name = path.replace(/^\/console\//, '').replace(/\//g, '-');
          await shot(page, width < 500 ? `phone-${name}` : name);
        }
        await page.context().close();
      }
    });
  },
);
