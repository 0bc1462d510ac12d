import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInProcessFlc, type InProcessFlc } from '../support/flc-in-process.js';
import { startServer, type TestServer } from '../support/http-server.js';
import { mountConsole } from '../../src/console/index.js';

/**
 * The console's "compile again in another format" form of a real `flc serve`, replayed: one
 * compile form (one bot challenge when configured) starts at most one run in each format.
 */
let flc: InProcessFlc;
let lists: TestServer;
const sessions: Record<'alice' | 'bob', string> = { alice: '', bob: '' };

beforeAll(async () => {
  lists = await startServer((_req, res) => void res.writeHead(200).end('||listed.example^\n'));
  // Unmetered, so that the test's page loads count for nothing.
  flc = await startInProcessFlc({ allowPrivateSources: true, console: mountConsole, unmetered: true });
  for (const name of ['alice', 'bob'] as const) sessions[name] = await flc.signIn(`${name}@example.org`);
}, 60_000);
afterAll(async () => {
  await flc?.close();
  await lists?.close();
});

const headers = (who: keyof typeof sessions) => ({ cookie: `flc_session=${sessions[who]}`, origin: flc.url });
const page = async (who: keyof typeof sessions, path: string) =>
  (await fetch(`${flc.url}${path}`, { headers: headers(who) })).text();
const csrf = async (who: keyof typeof sessions) =>
  /name="_csrf" value="([^"]+)"/.exec(await page(who, '/console/compile'))?.[1] ?? '';
const post = async (who: keyof typeof sessions, path: string, fields: Record<string, string>) =>
  fetch(`${flc.url}${path}`, {
    method: 'POST',
    headers: { ...headers(who), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: await csrf(who), ...fields }).toString(),
    redirect: 'manual',
  });
/** The run's page once it has ended. */
async function ended(who: keyof typeof sessions, location: string) {
  for (let i = 0; i < 100; i += 1) {
    const html = await page(who, new URL(location, flc.url).pathname);
    if (/id="result"/.test(html)) return html;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${location} did not end`);
}

describe('console: compile again in another format, replayed', () => {
  test('one form compiles its configuration once in each format; replays and other users are refused', async () => {
    const configuration = JSON.stringify({ name: 'replayed', sources: [{ source: `${lists.url}/list.txt` }] });
    const form = await post('alice', '/console/compile', { config: configuration, syntax: 'json', format: '' });
    expect(form.status).toBe(303);
    const first = form.headers.get('location') as string;
    expect(await ended('alice', first)).toContain('adblock format');
    const again = (from: string, format: string, who: keyof typeof sessions = 'alice') =>
      post(who, `${new URL(from, flc.url).pathname}/format`, { format });

    const hosts = await again(first, 'hosts');
    expect(hosts.status).toBe(303);
    const hostsRun = hosts.headers.get('location') as string;
    const hostsPage = await ended('alice', hostsRun);
    expect(hostsPage).toContain('hosts format');
    // The formats compiled already are no longer offered.
    expect(hostsPage).not.toMatch(/<option value="(hosts|adblock)"/);
    expect(hostsPage).toContain('<option value="rpz"');

    // The same post again, from either run, or back to the form's own format: refused, nothing started.
    for (const [from, format] of [
      [first, 'hosts'],
      [hostsRun, 'hosts'],
      [hostsRun, 'adblock'],
      [first, 'adblock'],
    ]) {
      const replay = await again(from, format);
      expect(replay.status).toBe(409);
      expect(await replay.text()).toContain('compiled in that format already');
    }
    // Another user cannot use Alice's run at all.
    expect((await again(first, 'rpz', 'bob')).status).toBe(404);
    // Each remaining format once, from whichever run of the form is still kept (a user keeps 3):
    // 7 formats in all from one form.
    let last = hostsRun;
    for (const format of ['domains', 'wildcard', 'dnsmasq', 'unbound', 'rpz']) {
      const next = await again(last, format);
      expect(next.status).toBe(303);
      last = next.headers.get('location') as string;
      await ended('alice', last);
    }
    expect((await again(last, 'domains')).status).toBe(409);
    expect(await page('alice', new URL(last, flc.url).pathname)).not.toContain('id="other-format"');
    // A new form is a new configuration's first run: it may be compiled in every format again.
    const fresh = await post('alice', '/console/compile', { config: configuration, syntax: 'json', format: 'hosts' });
    expect(fresh.status).toBe(303);
    await ended('alice', fresh.headers.get('location') as string);
    expect((await again(fresh.headers.get('location') as string, 'adblock')).status).toBe(303);
  }, 60_000);
});
