import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInProcessFlc, type InProcessFlc } from '../support/flc-in-process.js';
import { startServer, type TestServer } from '../support/http-server.js';

/** The compile cache of a real `flc serve`, attacked by two users compiling the same configuration. */
let flc: InProcessFlc;
let lists: TestServer;
const tokens: Record<'alice' | 'bob', string> = { alice: '', bob: '' };
/** Whether `/flaky.txt` answers (else 503). */
let flakyUp = false;

beforeAll(async () => {
  lists = await startServer((req, res) => {
    if (req.url === '/flaky.txt' && !flakyUp) return void res.writeHead(503).end();
    if (req.url === '/flaky.txt') return void res.writeHead(200).end('||flaky.example^\n');
    res.writeHead(200).end('||steady.example^\n');
  });
  flc = await startInProcessFlc({ allowPrivateSources: true });
  for (const name of ['alice', 'bob'] as const) tokens[name] = await flc.signIn(`${name}@example.org`);
}, 60_000);
afterAll(async () => {
  await flc?.close();
  await lists?.close();
});

const compile = (who: keyof typeof tokens, configuration: unknown) =>
  fetch(`${flc.url}/api/compile`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[who]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ configuration }),
  });

describe('flc serve: the compile cache against another user', () => {
  test('a compile that skipped a failed source is not served once that source reads again', async () => {
    const configuration = {
      name: 'skip',
      onSourceError: 'skip',
      sources: [{ source: `${lists.url}/steady.txt` }, { source: `${lists.url}/flaky.txt` }],
    };
    // Bob compiles while the source fails: his answer leaves it out.
    const bobs = await compile('bob', configuration);
    expect(bobs.status).toBe(200);
    expect((await bobs.json()).rules).not.toContain('||flaky.example^');
    // While it still fails, the same answer is still good.
    const again = await compile('alice', configuration);
    expect(again.headers.get('x-cache')).toBe('HIT');
    // Once it reads, Alice gets its rules, not Bob's answer without them.
    flakyUp = true;
    const alices = await compile('alice', configuration);
    expect(alices.headers.get('x-cache')).toBe('MISS');
    expect((await alices.json()).rules).toContain('||flaky.example^');
    expect((await compile('bob', configuration)).headers.get('x-cache')).toBe('HIT');
  }, 30_000);
});
