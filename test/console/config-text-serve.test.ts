import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startServer as startFlc, type RunningServer } from '../../src/server/start.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import type { Store } from '../../src/server/store/store.js';
import { mountConsole } from '../../src/console/index.js';
import { PARSE_LIMITS } from '../../src/node/parse-apart.js';

/** The console compile form of a real `flc serve` reading hostile YAML and TOML: never on the main thread. */
let flc: RunningServer;
let dir: string;
let store: Store;
let session = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flc-config-text-'));
  const location = { engine: 'sqlite' as const, file: join(dir, 'flc.db') };
  store = await openStore(location.file);
  await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 0 }, new Date().toISOString());
  flc = await startFlc({
    host: '127.0.0.1',
    port: 0,
    version: '0.0.1',
    allowPrivateSources: false,
    store: location,
    console: mountConsole,
    log: () => undefined,
  });
  const password = { hash: 'h', salt: 's', iterations: 1 };
  const user = await store.createUser({ email: 'yaml@example.org', role: 'user', tier: 'free', password });
  session = (await startSession(store, user, Date.now())).token;
}, 60_000);
afterAll(async () => {
  await flc?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const headers = () => ({ cookie: `flc_session=${session}`, origin: flc.url });
async function submit(config: string, syntax: string) {
  const page = await (await fetch(`${flc.url}/console/compile`, { headers: headers() })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const body = new FormData();
  body.set('_csrf', csrf);
  body.set('config', config);
  body.set('syntax', syntax);
  return fetch(`${flc.url}/console/compile`, { method: 'POST', headers: headers(), body, redirect: 'manual' });
}
/** The slowest answer of `/api/version` while `during` runs. */
async function slowestVersion(during: Promise<unknown>): Promise<number> {
  let slowest = 0;
  let done = false;
  void during.finally(() => {
    done = true;
  });
  while (!done) {
    const started = performance.now();
    await fetch(`${flc.url}/api/version`);
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((r) => setTimeout(r, 50));
  }
  return slowest;
}

describe('console: hostile YAML and TOML configurations', () => {
  test.each([
    ['yaml', `name: anchors\nz: ${'&a '.repeat(100_000)}x\n`],
    ['auto', `name: anchors\nz: ${'&a '.repeat(100_000)}x\n`],
    ['yaml', `name: deep\nz: ${'['.repeat(400_000)}${']'.repeat(400_000)}\n`],
    ['toml', `name = "deep"\nz = ${'['.repeat(400_000)}${']'.repeat(400_000)}\n`],
  ])(
    '%s of superlinear cost is read apart: refused within its deadline, the server answering meanwhile',
    async (syntax, text) => {
      const started = performance.now();
      const answer = submit(text, syntax);
      const slowest = await slowestVersion(answer);
      const res = await answer;
      expect(res.status).toBe(422);
      expect(await res.text()).toContain('The configuration is not valid');
      expect(performance.now() - started).toBeLessThan(PARSE_LIMITS.ms + 3_000);
      expect(slowest).toBeLessThan(500);
    },
    30_000,
  );

  test('YAML and TOML configurations still read, by syntax given or detected', async () => {
    const yaml = 'name: mine\nsources:\n  - source: https://example.org/list.txt\n';
    const toml = 'name = "mine"\n[[sources]]\nsource = "https://example.org/list.txt"\n';
    for (const [text, syntax] of [
      [yaml, 'yaml'],
      [yaml, 'auto'],
      [toml, 'toml'],
      [toml, 'auto'],
    ]) {
      // Read: the run starts (303), or waits for one of the user's three to end (429).
      const res = await submit(text, syntax);
      if (res.status !== 303) expect(await res.text()).toContain('Three of your compiles are still running');
      expect([303, 429]).toContain(res.status);
    }
    const bad = await submit('name: [unclosed\n', 'yaml');
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('YAML syntax error');
  }, 30_000);
});
