import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInProcessFlc, type InProcessFlc } from '../support/flc-in-process.js';
import { mountConsole } from '../../src/console/index.js';

/** Signed-in console forms of a real `flc serve` up to their body limit (the compile form: 1 MiB and a little). */
let flc: InProcessFlc;
let session = '';

beforeAll(async () => {
  flc = await startInProcessFlc({ console: mountConsole });
  session = await flc.signIn('big@example.org');
}, 60_000);
afterAll(async () => {
  await flc?.close();
});

const headers = () => ({ cookie: `flc_session=${session}`, origin: flc.url });

describe('console: a signed-in form of a few hundred KiB', () => {
  test.each([
    ['urlencoded', 300_000],
    ['multipart', 900_000],
  ])(
    'the compile form (%s, %i bytes of configuration) is answered, not held until the request timeout',
    async (kind, size) => {
      const page = await (await fetch(`${flc.url}/console/compile`, { headers: headers() })).text();
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
      // Not valid JSON: the answer is the form again with the reason (422), at once.
      const config = `{"name": "${'x'.repeat(size)}`;
      let body: URLSearchParams | FormData;
      if (kind === 'urlencoded') body = new URLSearchParams({ _csrf: csrf, config, syntax: 'json' });
      else {
        body = new FormData();
        body.set('_csrf', csrf);
        body.set('config', config);
        body.set('syntax', 'json');
      }
      const res = await fetch(`${flc.url}/console/compile`, {
        method: 'POST',
        headers: headers(),
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      });
      expect(res.status).toBe(422);
      expect(await res.text()).toContain('Configuration (JSON, YAML or TOML)');
    },
    20_000,
  );
});
