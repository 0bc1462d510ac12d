import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInProcessFlc, type InProcessFlc } from '../support/flc-in-process.js';
import { startServer, type TestServer } from '../support/http-server.js';

/** The worker pool's turns of a real `flc serve` (one worker), against a caller that sends and leaves. */
let flc: InProcessFlc;
let lists: TestServer;
const tokens: Record<'alice' | 'bob' | 'carol', string> = { alice: '', bob: '', carol: '' };
/** Answers the slow list (held until then). */
let releaseSlow: () => void = () => undefined;

beforeAll(async () => {
  lists = await startServer((req, res) => {
    // A list that takes 400 ms: each compile of it holds the one worker that long.
    if (req.url?.startsWith('/second.txt'))
      return void setTimeout(() => res.writeHead(200).end('||second.example^\n'), 400);
    if (req.url !== '/slow.txt') return void res.writeHead(200).end('||fast.example^\n');
    releaseSlow = () => {
      releaseSlow = () => undefined;
      res.writeHead(200).end('||slow.example^\n');
    };
  });
  flc = await startInProcessFlc({ allowPrivateSources: true, pool: { size: 1 } });
  for (const name of ['alice', 'bob', 'carol'] as const) tokens[name] = await flc.signIn(`${name}@example.org`);
}, 60_000);
afterAll(async () => {
  releaseSlow();
  await flc?.close();
  await lists?.close();
});

const post = (who: keyof typeof tokens, path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${flc.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[who]}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));
/** The pool's counts as `/api/health` tells them (computed again 5 s apart while the pool is busy). */
const workers = async () => {
  await settle(5_100);
  return (await (await fetch(`${flc.url}/api/health`)).json()).checks.workers;
};

describe('flc serve: the pool line against callers that leave', () => {
  test("walks sent and left while the worker is busy hold no place in the pool's line", async () => {
    // Alice's compile holds the one worker while its source answers nothing.
    const slow = post('alice', '/api/compile', {
      configuration: { name: 'slow', sources: [{ source: `${lists.url}/slow.txt` }] },
    });
    expect((await workers()).running).toBe(1);
    // Bob sends 20 walks, each left before it could start (far more than his share of 3).
    for (let i = 0; i < 20; i += 1) {
      const left = new AbortController();
      const walk = post('bob', '/api/ast/walk', { rules: [`||left${i}.example^`] }, left.signal).catch(() => null);
      await settle();
      left.abort();
      await walk;
    }
    expect(await workers()).toMatchObject({ running: 1, waiting: 0 });
    // The next walk, kept, runs as soon as the worker is free.
    const kept = post('bob', '/api/ast/walk', { rules: ['||kept.example^'] });
    expect((await workers()).waiting).toBe(1);
    releaseSlow();
    expect((await slow).status).toBe(200);
    expect((await kept).status).toBe(200);
  }, 60_000);

  test('two callers sending their next compile as soon as one answers do not starve a third', async () => {
    const compile = (who: keyof typeof tokens, name: string) =>
      post(who, '/api/compile', { configuration: { name, sources: [{ source: `${lists.url}/second.txt?${name}` }] } });
    // Alice and Carol each keep one compile going, back to back, for 6 s.
    const until = Date.now() + 6_000;
    const loop = async (who: 'alice' | 'carol') => {
      for (let i = 0; Date.now() < until; i += 1) expect((await compile(who, `${who}-${i}`)).status).toBe(200);
    };
    const loops = [loop('alice'), loop('carol')];
    await settle(1_000);
    // Bob sends two at once: the first is served as a newcomer's; the second must not wait for the loops to stop.
    const started = performance.now();
    const bob = await Promise.all(
      [1, 2].map(async (i) => {
        expect((await compile('bob', `bob-${i}`)).status).toBe(200);
        return performance.now() - started;
      }),
    );
    expect(Math.max(...bob)).toBeLessThan(3_000);
    await Promise.all(loops);
  }, 60_000);
});
