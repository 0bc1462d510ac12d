import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { type ServeProcess, startServe } from '../../support/serve-process.js';
import { call, PASSWORD } from '../../support/serve-accounts.js';

/**
 * Issue 30, point 3, against a real `flc serve`: the 130-byte rule whose text's first `$` is not
 * where AGTree's modifiers start. Its match runs in the worker pool under the match budget, for
 * the REST route and for its tRPC twin, and `/api/health` answers meanwhile.
 */

const HOSTILE = {
  rule: '||aaa^$a*a*a*a*a*a*a*a*a*a*b$important',
  testUrl: 'https://aaa$$aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com/',
};

const dir = mkdtempSync(join(tmpdir(), 'flc-regex-attack-'));
let server: ServeProcess;
let token: string;
beforeAll(async () => {
  server = await startServe(['--db', join(dir, 'flc.db'), '--compile-workers', '2']);
  const up = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, {
    email: 'free@example.org',
    password: PASSWORD,
  });
  expect(up.status, up.text).toBe(200);
  token = up.json.token as string;
}, 60_000);
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a backtracking rule from a free user', () => {
  test('REST and tRPC: stopped by the match budget; /api/health answers meanwhile', async () => {
    const started = performance.now();
    const rest = call(server.url, 'POST', '/api/validate-rule', token, HOSTILE);
    const trpc = call(server.url, 'POST', '/api/trpc/validateRule', token, HOSTILE);
    // Both are running (or queued in the pool) while the health probe asks, several times.
    await new Promise((r) => setTimeout(r, 100));
    const latencies: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const t0 = performance.now();
      const health = await fetch(`${server.url}/api/health`);
      latencies.push(performance.now() - t0);
      expect(health.status).toBe(200);
      await health.arrayBuffer();
      await new Promise((r) => setTimeout(r, 50));
    }
    const [r, t] = await Promise.all([rest, trpc]);
    // A match on the main thread would hold a probe for its whole run; none takes a quarter of it.
    const ran = performance.now() - started;
    expect(Math.max(...latencies), latencies.map((l) => l.toFixed(0)).join(' ')).toBeLessThan(ran / 4);
    expect(r.status, r.text).toBe(422);
    expect(r.json.error).toMatch(/Matching the rule against testUrl took longer than .*ms/);
    expect(t.status, t.text).not.toBe(200);
    expect(t.text).toMatch(/Matching the rule against testUrl took longer than/);
    // The budget, not the 22 s of backtracking, decided when they ended.
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 60_000);

  test('the same rule without testUrl, and honest rules with one, still answer 200', async () => {
    const plain = await call(server.url, 'POST', '/api/validate-rule', token, { rule: HOSTILE.rule });
    expect(plain.status).toBe(200);
    const host = await call(server.url, 'POST', '/api/validate-rule', token, {
      rule: '||ads.example^',
      testUrl: 'https://x.ads.example/',
    });
    expect(host.json.matchResult).toBe(true);
    const regex = await call(server.url, 'POST', '/api/validate-rule', token, {
      rule: '/ads[0-9]+/',
      testUrl: 'https://ads12.example/',
    });
    expect(regex.json.matchResult).toBe(true);
  });
});
