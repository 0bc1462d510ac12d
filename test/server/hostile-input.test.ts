import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testApp } from '../support/test-app.js';
import { SafeSourceReader } from '../../src/node/safe-reader.js';
import { CompilePool } from '../../src/node/compile-pool.js';
import { startServer, type TestServer } from '../support/http-server.js';
import { validateRuleWithoutRegex } from '../../src/core/ast/validate-rule.js';

// Short deadlines, so that the hostile requests fail within the test; the defaults are a minute and a second.
// One worker per hostile request, so none waits for another's worker.
const pool = new CompilePool({ size: 3, deadlineMs: 3_000, matchBudgetMs: 1_000 });
let lists: TestServer;
const { request } = testApp({
  pool,
  makeReader: () =>
    new SafeSourceReader({ allowPrivate: true, timeoutMs: 5_000, retries: 0, maxBytes: 1 << 20, userAgent: 'test' }),
});
const post = (path: string, body: unknown) =>
  request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const compileWith = (exclusion: string) =>
  post('/api/compile', {
    configuration: { name: 'hostile', sources: [{ source: `${lists.url}/a.txt` }], exclusions: [exclusion] },
  });

beforeAll(async () => {
  lists = await startServer((_req, res) => res.end(`${'a'.repeat(400)}\n||ok.example^\n`));
  // The pool starts its threads when first asked; started here, their start-up on a loaded machine
  // is not taken from the hostile requests' deadlines.
  const warm = { rule: '/ads[0-9]+/', testUrl: 'https://ads1.example/' };
  await Promise.all([1, 2, 3].map(() => post('/api/validate-rule', warm)));
});
afterAll(async () => {
  await lists.close();
  await pool.destroy();
});

describe('no request holds the event loop', () => {
  test('/api/health answers again and again while hostile requests run, which fail by their deadline', async () => {
    const started = performance.now();
    const hostile = [
      post('/api/validate-rule', { rule: '/(a+)+b/', testUrl: `https://${'a'.repeat(34)}.com/` }),
      compileWith('a*a*a*a*a*a*b'),
      compileWith('/(a+)+b/'),
    ];
    // Until the hostile requests end, the health check is asked again and again, each answer timed.
    let settled = false;
    const done = Promise.allSettled(hostile).finally(() => {
      settled = true;
    });
    const timings: number[] = [];
    while (!settled) {
      const asked = performance.now();
      const res = await request('/api/health');
      expect(res.status).toBe(200);
      timings.push(performance.now() - asked);
      await new Promise((r) => setTimeout(r, 50));
    }
    await done;
    const hostileMs = performance.now() - started;
    // A regex on the main thread would hold one health check for the whole of its run (at least
    // its 1 s budget): no answer takes a quarter of the hostile requests' time, however loaded the machine.
    expect(timings.length).toBeGreaterThan(5);
    expect(Math.max(...timings)).toBeLessThan(hostileMs / 4);

    const [rule, wildcard, regex] = await Promise.all(hostile);
    // The backtracking regex is stopped by its match budget or by the task's deadline.
    expect(rule.status).toBe(422);
    expect((await rule.json()).error).toMatch(/Matching the rule against testUrl took longer than .* (1000|3000) ms/);
    // The wildcard is matched in linear time: no timeout, the line is kept.
    const wildcardText = await wildcard.clone().text();
    expect(wildcard.status, wildcardText).toBe(200);
    expect((await wildcard.json()).rules).toContain('a'.repeat(400));
    // The /regex/ exclusion backtracks for ever: the compile fails by its deadline.
    expect(regex.status).toBe(422);
    expect((await regex.json()).error).toMatch(/The compilation took longer than its deadline of 3000 ms/);
  }, 60_000);

  test('only rules whose match needs no regular expression, judged on the parsed rule, skip the pool', () => {
    const testUrl = 'https://ads.example.com/';
    const here = [
      '||ads.example.com^',
      '@@||ads.example.com^$third-party,domain=a.org',
      '$third-party',
      '0.0.0.0 ads.example',
      'example.org##.ad',
    ];
    for (const rule of here) expect(validateRuleWithoutRegex({ rule, testUrl }), rule).not.toBeNull();
    const pooled = [
      '/(a+)+b/',
      '/ads$/',
      '||ads*.example^',
      'ads',
      // The text's first `$` is not where AGTree's modifiers start: its pattern runs to the last one.
      '||aaa^$a*a*a*a*a*a*a*a*a*a*b$important',
    ];
    for (const rule of pooled) expect(validateRuleWithoutRegex({ rule, testUrl }), rule).toBeNull();
  });

  test('a rule whose regex is harmless is matched in the pool as in-process', async () => {
    const res = await post('/api/validate-rule', { rule: '/ads[0-9]+/', testUrl: 'https://ads12.example/' });
    expect(res.status).toBe(200);
    expect((await res.json()).matchResult).toBe(true);
  });
});
