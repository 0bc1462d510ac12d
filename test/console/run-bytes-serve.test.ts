import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInProcessFlc, type InProcessFlc } from '../support/flc-in-process.js';
import { mountConsole } from '../../src/console/index.js';
import { RUN_LIMITS } from '../../src/console/compile/runs.js';
import { startServer, type TestServer } from '../support/http-server.js';

/** What one console compile of a real `flc serve` keeps while it runs: bytes, not only lines and events. */
let flc: InProcessFlc;
let lists: TestServer;
let session = '';
const LONG = 4_000;
/** 4,500 comment lines of 4,000 characters: 18 MB, all removed by RemoveComments. */
const longList = Array.from({ length: 4_500 }, (_, i) => `! ${i} ${'c'.repeat(LONG)}`).join('\n');

beforeAll(async () => {
  lists = await startServer((req, res) => {
    if (req.url?.startsWith('/long.txt')) return void res.writeHead(200).end(longList);
    res.writeHead(200).end('||kept.example^\n');
  });
  flc = await startInProcessFlc({ allowPrivateSources: true, console: mountConsole, unmetered: true });
  session = await flc.signIn('runs@example.org');
}, 60_000);
afterAll(async () => {
  await flc?.close();
  await lists?.close();
});

const headers = () => ({ cookie: `flc_session=${session}`, origin: flc.url });
const page = async (path: string) => (await fetch(`${flc.url}${path}`, { headers: headers() })).text();
/** Starts a console compile of `configuration` and answers its page once it has ended. */
async function compiled(configuration: unknown): Promise<string> {
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page('/console/compile'))?.[1] ?? '';
  const res = await fetch(`${flc.url}/console/compile`, {
    method: 'POST',
    headers: headers(),
    body: new URLSearchParams({ _csrf: csrf, config: JSON.stringify(configuration), syntax: 'json' }),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  const path = new URL(res.headers.get('location') as string, flc.url).pathname;
  for (let i = 0; i < 200; i += 1) {
    const html = await page(path);
    if (/id="result"/.test(html)) return html;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the compile did not end');
}

describe('console: the bytes one run keeps', () => {
  test('removed lines past 16 MiB are counted, not kept', async () => {
    const html = await compiled({
      name: 'long lines',
      sources: [{ source: `${lists.url}/long.txt?1` }, { source: `${lists.url}/long.txt?2` }],
      transformations: ['RemoveComments'],
    });
    expect(html).toContain('Done: 0 rules');
    const kept = Number(/(\d+) removed lines/.exec(html)?.[1]);
    const dropped = Number(/(\d+) more were removed than the report keeps/.exec(html)?.[1]);
    // 9,000 lines of 4 KB removed (36 MB): the report keeps what fits in its bytes, and counts the rest.
    expect(kept + dropped).toBeGreaterThanOrEqual(9_000);
    expect(kept * LONG).toBeLessThanOrEqual(RUN_LIMITS.removedBytes);
    expect(kept).toBeGreaterThan(RUN_LIMITS.removedBytes / (LONG + 200) - 1);
  }, 60_000);
});
