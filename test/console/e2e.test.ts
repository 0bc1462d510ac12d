import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { openStore } from '../../src/server/store/open.js';
import { UNDER_CI } from '../support/ci.js';

// The web console in a real headless Chromium (Debian's `chromium`, driven by playwright-core)
// against a real `flc serve` (the built bin, with its worker pool) on a temporary SQLite store.
// Without the browser the tests are skipped with the reason, except under CI, which installs it
// (.ci/run) and fails without it. Each page's screenshot goes to test-results/console/.
const CHROMIUM = process.env.FLC_CHROMIUM ?? '/usr/bin/chromium';
const BIN = resolve(import.meta.dirname, '../../bin/run.js');
const SHOTS = resolve(import.meta.dirname, '../../test-results/console');
const missing = existsSync(CHROMIUM) ? null : `${CHROMIUM} is not installed (Debian: apt-get install chromium)`;
if (missing && UNDER_CI) throw new Error(`CI must run the console's browser tests: ${missing}`);

const LIST = [
  '! Title: local test list',
  '0.0.0.0 ads.example.com',
  '0.0.0.0 ads.example.com',
  '0.0.0.0 tracker.example.net',
  '127.0.0.1 localhost',
  '||bad rule with space',
  '||cdn.example.org^',
].join('\n');

/** The lists compiles read: `/list.txt` after a pause (its page sees the compile run), `/slow.txt` never ends. */
interface Lists {
  server: Server;
  url: string;
  /** Slow downloads whose connection the client closed. */
  abandoned: number;
}

async function listServer(): Promise<Lists> {
  const lists: Lists = { server: createServer(), url: '', abandoned: 0 };
  lists.server.on('request', (req, res) => {
    if (req.url === '/list.txt') {
      setTimeout(() => res.end(LIST), 1_500);
    } else if (req.url === '/slow.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('||first.example.com^\n');
      res.on('close', () => {
        if (!res.writableFinished) lists.abandoned += 1;
      });
    } else if (req.url === '/forge.html') {
      // Another port on the same host is the same site: SameSite cookies go with its forms.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<form id="f" method="post" action="${process.env.FLC_E2E_TARGET}/console/compile">` +
          `<input name="config" value='{"name":"forged","sources":[{"source":"x"}]}'></form>` +
          '<script>document.getElementById("f").submit()</script>',
      );
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => lists.server.listen(0, '127.0.0.1', r));
  lists.url = `http://127.0.0.1:${(lists.server.address() as AddressInfo).port}`;
  return lists;
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

const PASSWORD = 'correct horse battery 9';

describe.skipIf(missing !== null)(`the web console in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let dir: string;
  let serve: { child: ChildProcess; url: string };
  let lists: Lists;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flc-console-'));
    mkdirSync(SHOTS, { recursive: true });
    const db = join(dir, 'flc.db');
    // Every request of the run comes from 127.0.0.1: the anonymous tier's 10 a minute per address
    // (the specification's) would refuse the later signed-out pages of this one "visitor".
    const store = await openStore(db);
    await store.updateConfigRow('tiers', { tier_name: 'anonymous' }, { rate_limit: 0 }, new Date().toISOString());
    await store.close();
    serve = await startServe(db);
    process.env.FLC_E2E_TARGET = serve.url;
    lists = await listServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    page = await context.newPage();
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

  test('a signed-out request to an admin page lands on /login with the message once; no flash= stays', async () => {
    const answered = await page.goto(`${serve.url}/admin/system/audit`);
    expect(answered?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(page.url()).not.toContain('flash=');
    await expect.poll(() => page.locator('#notice').textContent()).toContain('Authentication required');
    await shot('login-with-message');
    await page.reload();
    expect(page.url()).not.toContain('flash=');
    expect(await page.locator('#notice').count()).toBe(0);
  });

  test('sign-up and sign-in lead to the console', async () => {
    await page.goto(`${serve.url}/signup`);
    await shot('signup');
    await page.getByLabel('Email').fill('maintainer@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${serve.url}/console`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${serve.url}/login`);
    await page.getByLabel('Email').fill('maintainer@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${serve.url}/console`);
    expect(await page.locator('main').textContent()).toContain('Signed in as maintainer@example.com');
    const nav = await page.getByRole('navigation', { name: 'Console' }).textContent();
    expect(nav).toContain('Compile');
    expect(nav).toContain('Rules');
    await shot('console-home');
  });

  test('a compile of a local list streams its steps and ends with its rule count and a filtering report', async () => {
    await page.goto(`${serve.url}/console/compile`);
    const config = {
      name: 'Local list',
      sources: [{ source: `${lists.url}/list.txt`, type: 'hosts' }],
      transformations: ['RemoveComments', 'Compress', 'Validate', 'Deduplicate', 'InsertFinalNewLine'],
    };
    await page.getByLabel('Configuration (JSON, YAML or TOML)').fill(JSON.stringify(config, null, 2));
    await page.getByLabel('Output format').selectOption('adblock');
    await shot('compile-form');
    await page.getByRole('button', { name: 'Compile' }).click();
    await page.waitForURL(/\/console\/compile\/runs\//);
    // The run page came while the source was still being read: what follows arrives over SSE.
    expect(await page.locator('#result').count()).toBe(0);
    let navigations = 0;
    page.on('framenavigated', () => navigations++);
    await page.locator('#result').waitFor({ timeout: 30_000 });
    expect(navigations).toBe(0);
    const steps = await page.locator('#steps li').allTextContents();
    expect(steps.some((s) => s.startsWith('Source 1:') && s.includes('lines in'))).toBe(true);
    expect(steps.some((s) => s.startsWith('Validate (whole list):'))).toBe(true);
    expect(steps.some((s) => s.startsWith('Download '))).toBe(true);
    expect(await page.locator('#result').textContent()).toContain('Done: 3 rules');
    const status = page.locator('#report-table [role="status"]');
    expect(await status.textContent()).toMatch(/^(\d+) of \1 removed lines/);
    await shot('compile-result');
    await page.getByLabel('Reason').selectOption('invalid-rule');
    await expect.poll(() => status.textContent()).toMatch(/^2 of \d+ removed lines/);
    const reasons = await page.locator('#report-table tbody td:nth-child(4)').allTextContents();
    expect(reasons).toHaveLength(2);
    for (const r of reasons) expect(r).toMatch(/^invalid-rule: /);
    const lines = await page.locator('#report-table tbody td:nth-child(2)').allTextContents();
    expect(lines.sort()).toEqual(['5', '6']);
    await shot('compile-report-filtered');
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download the list' }).click();
    const file = await (await download).path();
    expect(readFileSync(file, 'utf8')).toContain('||tracker.example.net^');
    // The same configuration in another format: a new run, downloaded as that format's file.
    await page.getByLabel('Another output format').selectOption('dnsmasq');
    await page.getByRole('button', { name: 'Compile in this format' }).click();
    await page.waitForURL((url) => /\/console\/compile\/runs\//.test(url.pathname));
    await page.locator('#result').waitFor({ timeout: 30_000 });
    expect(await page.locator('#result').textContent()).toContain('dnsmasq format');
    const other = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download the list' }).click();
    const dnsmasq = await other;
    expect(dnsmasq.suggestedFilename()).toBe('Local-list.conf');
    expect(readFileSync(await dnsmasq.path(), 'utf8')).toMatch(/^(local|address)=\/tracker\.example\.net\//m);
  });

  test('cancel stops a slow compile and closes its download', async () => {
    await page.goto(`${serve.url}/console/compile`);
    const config = { name: 'Slow list', sources: [{ source: `${lists.url}/slow.txt` }] };
    await page.getByLabel('Configuration (JSON, YAML or TOML)').fill(JSON.stringify(config));
    await page.getByRole('button', { name: 'Compile' }).click();
    await page.waitForURL(/\/console\/compile\/runs\//);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.locator('#result').textContent(), { timeout: 20_000 }).toContain('Cancelled');
    await expect.poll(() => lists.abandoned).toBe(1);
    await shot('compile-cancelled');
  });

  test('the rule tester and the syntax tree', async () => {
    await page.goto(`${serve.url}/console/rules`);
    await page.getByLabel('Rule', { exact: true }).fill('||ads.example.com^$third-party');
    await page.getByLabel(/Test URL/).fill('https://x.ads.example.com/');
    await page.getByRole('button', { name: 'Test' }).click();
    expect(await page.locator('#match').textContent()).toContain('Matches https://x.ads.example.com/');
    expect(await page.locator('#validators').textContent()).toContain('removes it: unsupported modifier $third-party');
    await shot('rules-test');
    await page.getByLabel('Rules, one a line').fill('||a.example^$domain=b.example\nexample.org##.banner');
    await page.getByRole('button', { name: 'Show the tree' }).click();
    const tree = page.locator('#tree');
    expect(await tree.locator('summary').first().textContent()).toContain('NetworkRule');
    await tree.locator('summary').first().click();
    expect(await tree.textContent()).toContain('DomainList');
    await shot('rules-tree');
    // A phone's width: the page fits, nothing scrolls sideways but the tables' own boxes.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${serve.url}/console/compile`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot('compile-form-phone');
    await page.setViewportSize({ width: 1000, height: 800 });
  });

  test("a page's uncaught error is reported to the frontend error log", async () => {
    await page.goto(`${serve.url}/console`);
    const reported = page.waitForRequest((r) => r.url() === `${serve.url}/api/log/frontend-error`);
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('console e2e: thrown on purpose');
      });
    });
    const request = await reported;
    expect(request.postDataJSON()).toMatchObject({ source: 'browser', message: expect.stringContaining('on purpose') });
    expect((await request.response())?.status()).toBe(204);
  });

  test('a forged form post without the CSRF token is refused', async () => {
    // From this site's own page, a form without the token:
    const status = await page.evaluate(async () => {
      const body = new FormData();
      body.set('config', '{"name":"forged","sources":[{"source":"https://example.org/x"}]}');
      return (await fetch('/console/compile', { method: 'POST', body })).status;
    });
    expect(status).toBe(403);
    // From another page of the same site (another port of 127.0.0.1), which the SameSite cookie follows:
    const forged = page.waitForResponse((r) => r.url() === `${serve.url}/console/compile`);
    await page.goto(`${lists.url}/forge.html`);
    expect((await forged).status()).toBe(403);
    await page.goto(`${serve.url}/console/compile`);
    expect(await page.locator('main').textContent()).not.toContain('forged');
  });
});
