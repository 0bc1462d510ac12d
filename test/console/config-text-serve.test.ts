import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInProcessFlc, type InProcessFlc } from '../support/flc-in-process.js';
import { mountConsole } from '../../src/console/index.js';
import { PARSE_LIMITS } from '../../src/node/parse-apart.js';

/** The console compile form of a real `flc serve` reading hostile YAML and TOML: never on the main thread. */
let flc: InProcessFlc;
let session = '';

beforeAll(async () => {
  flc = await startInProcessFlc({ console: mountConsole, unmetered: true });
  session = await flc.signIn('yaml@example.org');
}, 60_000);
afterAll(async () => {
  await flc?.close();
});

const headers = () => ({ cookie: `flc_session=${session}`, origin: flc.url });
/** The compile form filled in, its CSRF token from the page. */
async function form(config: string, syntax: string): Promise<FormData> {
  const page = await (await fetch(`${flc.url}/console/compile`, { headers: headers() })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const body = new FormData();
  body.set('_csrf', csrf);
  body.set('config', config);
  body.set('syntax', syntax);
  return body;
}
const post = (body: FormData) =>
  fetch(`${flc.url}/console/compile`, { method: 'POST', headers: headers(), body, redirect: 'manual' });
const submit = async (config: string, syntax: string) => post(await form(config, syntax));
/**
 * How many answers of `/api/version` arrived while `during` ran, one asked for 50 ms after the
 * last came. A parse on the main thread holds the first until it ends: none would.
 */
async function versionsAnswered(during: Promise<unknown>): Promise<number> {
  let answered = 0;
  let done = false;
  void during.finally(() => {
    done = true;
  });
  while (!done) {
    // Any answer is the main thread's (a 429 once the anonymous probes pass their limit too).
    await (await fetch(`${flc.url}/api/version`)).arrayBuffer();
    if (!done) answered += 1;
    await new Promise((r) => setTimeout(r, 50));
  }
  return answered;
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
      const answer = post(await form(text, syntax));
      const answered = await versionsAnswered(answer);
      const res = await answer;
      expect(res.status).toBe(422);
      expect(await res.text()).toContain('The configuration is not valid');
      expect(performance.now() - started).toBeLessThan(PARSE_LIMITS.ms + 3_000);
      expect(answered).toBeGreaterThanOrEqual(5);
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
