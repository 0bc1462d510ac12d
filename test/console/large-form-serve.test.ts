import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startServer as startFlc, type RunningServer } from '../../src/server/start.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import type { Store } from '../../src/server/store/store.js';
import { mountConsole } from '../../src/console/index.js';

/** Signed-in console forms of a real `flc serve` up to their body limit (the compile form: 1 MiB and a little). */
let flc: RunningServer;
let dir: string;
let store: Store;
let session = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flc-large-form-'));
  const location = { engine: 'sqlite' as const, file: join(dir, 'flc.db') };
  flc = await startFlc({
    host: '127.0.0.1',
    port: 0,
    version: '0.0.1',
    allowPrivateSources: false,
    store: location,
    console: mountConsole,
    log: () => undefined,
  });
  store = await openStore(location.file);
  const password = { hash: 'h', salt: 's', iterations: 1 };
  const user = await store.createUser({ email: 'big@example.org', role: 'user', tier: 'free', password });
  session = (await startSession(store, user, Date.now())).token;
}, 60_000);
afterAll(async () => {
  await flc?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
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
