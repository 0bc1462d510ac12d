import { afterAll, describe, expect, test } from 'vitest';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '../../src/server/trpc/router.js';
import { testApp } from '../support/test-app.js';
import { CompilePool } from '../../src/node/compile-pool.js';
import { walkAst } from '../../src/core/ast/walk.js';
import { parseRules, validateList } from '../../src/core/ast/list.js';
import { boundedJson } from '../../src/core/ast/answers.js';

// The amplifying body of a threat review: 5,000 rules, each with 50 `$domain`s and a removeparam
// regex (2 MB, under the 3 MiB body limit). Its walk would answer 51 MiB.
const domains = Array.from({ length: 50 }, (_, i) => `a${i}.io`).join('|');
const hostileRules = Array.from(
  { length: 5000 },
  (_, i) => `||ads${i}.example^$domain=${domains},removeparam=/^(utm_[a-z]+|ref${i})$/`,
);
const LIMIT = 32 * 1024 * 1024;

// The server's defaults (10 s per task, 32 MiB answers), on two workers.
const pool = new CompilePool({ size: 2 });
// A deadline far shorter than the hostile walk, and an answer limit it never reaches.
const hasty = new CompilePool({ size: 1, listDeadlineMs: 100, maxAnswerBytes: 1024 * 1024 * 1024 });
afterAll(async () => {
  await pool.destroy();
  await hasty.destroy();
});

function server(p: CompilePool) {
  const { request, ready } = testApp({ pool: p });
  // Six tasks at once from the one tester below: their tier's share of the pool lets them in.
  const raised = ready.then(({ store }) =>
    store.updateConfigRow(
      'tiers',
      { tier_name: 'admin' },
      { features: { maxConcurrentCompiles: 6 } },
      new Date().toISOString(),
    ),
  );
  const post = async (path: string, body: unknown) => {
    await raised;
    return request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  };
  const trpc = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: 'http://flc.test/api/trpc',
        fetch: async (url, init) => request(new URL(String(url)).pathname, init as RequestInit),
      }),
    ],
  });
  return { request, post, trpc };
}
const { request, post, trpc } = server(pool);
const withoutDuration = (text: string) => text.replace(/"duration":"\d+ms"/, '"duration":""');

describe('/api/ast/walk, /api/ast/parse and /api/validate run in the worker pool', () => {
  test('their answers are the bytes JSON.stringify gives of the in-process answer', async () => {
    const rules = ['||ads.example^$third-party', 'example.org##.banner', '@@||good.example^', '/ads[0-9]+/', '!x', ''];
    const walk = { rules, maxDepth: 3, includeContext: true };
    const cases: [string, unknown, unknown][] = [
      ['/api/ast/walk', walk, walkAst(walk)],
      [
        '/api/ast/walk',
        { text: rules.join('\n'), nodeTypes: ['Modifier'] },
        walkAst({ text: rules.join('\n'), nodeTypes: ['Modifier'] }),
      ],
      ['/api/ast/parse', { rules: rules.slice(0, 4) }, parseRules({ rules: rules.slice(0, 4) })],
      [
        '/api/validate',
        { text: `${rules.join('\n')}\n||bad^$unknown-modifier` },
        validateList({ text: `${rules.join('\n')}\n||bad^$unknown-modifier` }),
      ],
    ];
    for (const [path, body, result] of cases) {
      const res = await post(path, body);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      const expected = JSON.stringify({ success: true, ...(result as object), duration: '0ms' });
      expect(withoutDuration(await res.text()), path).toBe(withoutDuration(expected));
    }
    // The bounded serializer is JSON.stringify's text (undefined fields left out, undefined elements null).
    const value = { success: true, a: undefined, nodes: [{ x: 'é', y: undefined }, undefined, 1], s: { k: 2 } };
    expect(boundedJson(value, 1000)).toBe(JSON.stringify(value));
    expect(boundedJson(value, 10)).toBeNull();
    // tRPC's twins answer the same bytes in tRPC's envelope, which its client reads.
    for (const [procedure, path, body] of [
      ['ast.walk', '/api/ast/walk', walk],
      ['ast.parse', '/api/ast/parse', { rules }],
    ] as const) {
      const [viaTrpc, viaRest] = await Promise.all([post(`/api/trpc/${procedure}`, body), post(path, body)]);
      expect(viaTrpc.status).toBe(200);
      expect(withoutDuration(await viaTrpc.text())).toBe(
        `{"result":{"data":${withoutDuration(await viaRest.text())}}}`,
      );
    }
    const { nodes } = JSON.parse(JSON.stringify(walkAst(walk))) as { nodes: unknown[] };
    expect(await trpc.ast.walk.mutate(walk)).toMatchObject({ success: true, nodes });
  });

  test('an amplifying walk is refused past the answer limit, naming it, on REST and tRPC', async () => {
    const body = JSON.stringify({ rules: hostileRules });
    expect(body.length).toBeLessThan(3 * 1024 * 1024);
    const res = await post('/api/ast/walk', { rules: hostileRules });
    expect(res.status).toBe(422);
    const answer = await res.json();
    expect(answer.success).toBe(false);
    expect(answer.error).toBe(
      'The walk of these rules would be larger than the answer limit of 32 MiB (--ast-answer-limit): ' +
        'walk fewer rules at a time, or ask for fewer nodeTypes or a lower maxDepth',
    );
    const refused = await trpc.ast.walk.mutate({ rules: hostileRules }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<AppRouter>).message).toMatch(/answer limit of 32 MiB \(--ast-answer-limit\)/);
    // What fits stays whole: the same rules' parse answers about 6 MB.
    const parse = await post('/api/ast/parse', { rules: hostileRules });
    expect(parse.status).toBe(200);
    const parsed = await parse.text();
    expect(Buffer.byteLength(parsed)).toBeLessThan(LIMIT);
    expect(JSON.parse(parsed).results).toHaveLength(5000);
  }, 120_000);

  test('a walk past its deadline is stopped', async () => {
    const hurried = server(hasty);
    const res = await hurried.post('/api/ast/walk', { rules: hostileRules });
    expect(res.status).toBe(422);
    expect((await res.json()).error).toBe('The walk took longer than its deadline of 100 ms and was stopped');
    const parse = await hurried.post('/api/ast/parse', { rules: hostileRules });
    expect((await parse.json()).error).toBe('The parse took longer than its deadline of 100 ms and was stopped');
    // The pool replaced the stopped worker: a small walk still answers.
    const small = await hurried.post('/api/ast/walk', { rules: ['||a.example^'] });
    expect(small.status).toBe(200);
  }, 120_000);

  test('/api/health keeps answering while large walks, parses and validations run', async () => {
    const started = performance.now();
    const hostile = [
      ...Array.from({ length: 3 }, () => post('/api/ast/walk', { rules: hostileRules })),
      post('/api/ast/parse', { rules: hostileRules }),
      post('/api/validate', { rules: hostileRules }),
      post('/api/ast/walk', { rules: hostileRules.slice(0, 500) }),
    ];
    let settled = false;
    const done = Promise.allSettled(hostile).finally(() => {
      settled = true;
    });
    const timings: number[] = [];
    while (!settled) {
      const asked = performance.now();
      const res = await request('/api/health');
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      timings.push(performance.now() - asked);
      await new Promise((r) => setTimeout(r, 20));
    }
    await done;
    const hostileMs = performance.now() - started;
    // On the main thread one walk holds a health check for its whole run: here none takes a
    // quarter of the time the hostile requests took, however loaded the machine.
    expect(timings.length).toBeGreaterThan(5);
    expect(Math.max(...timings)).toBeLessThan(hostileMs / 4);
    const statuses = await Promise.all(hostile.map(async (r) => (await r).status));
    expect(statuses).toEqual([422, 422, 422, 200, 200, 200]);
  }, 120_000);
});
