import { afterAll, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';

/** Oversize and malformed input on every route of the flash, error-log, rule-set and admin-store groups. */
const now = Date.parse('2026-08-01T00:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'flc-hostile-'));
// A store file, so that the read-only query runs its real path (a second connection).
const store = await openStore(join(dir, 'flc.db'));
for (const tier of ['anonymous', 'free'])
  await store.updateConfigRow('tiers', { tier_name: tier }, { rate_limit: 0 }, new Date(now).toISOString());
const app = createApp({
  store,
  version: '1',
  now: () => now,
  startedAt: now,
  makeReader: () => {
    throw new Error('unused');
  },
});
const root = await store.createUser({
  email: 'root@example.org',
  role: 'admin',
  tier: 'admin',
  password: { hash: 'h', salt: 's', iterations: 1 },
});
await store.assignRole(root.id, 'super-admin', 'test', new Date(now).toISOString());
const token = (await startSession(store, root, now)).token;
const ruleSet = (await store.createRuleSet({
  id: 'rs1',
  ownerId: root.id,
  name: 'r',
  description: null,
  rules: ['a'],
  ruleCount: 1,
  createdAt: new Date(now).toISOString(),
  updatedAt: new Date(now).toISOString(),
})) as { id: string };
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const send = (method: string, path: string, body?: string, contentType = 'application/json') =>
  app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
    ...(body !== undefined ? { body } : {}),
  });

const KiB = 1024;
/** Each route that takes a body, with its limit. */
const BODY_ROUTES: [method: string, path: string, limit: number][] = [
  ['POST', '/api/log/frontend-error', 64 * KiB],
  ['POST', '/api/rules', 1024 * KiB],
  ['PATCH', `/api/rules/${ruleSet.id}`, 1024 * KiB],
  ['POST', '/api/admin/neon/query', 64 * KiB],
  ['POST', '/api/admin/storage/vacuum', 1024 * KiB],
  ['POST', '/api/admin/storage/checkpoint', 1024 * KiB],
  ['POST', '/api/admin/storage/prune', 1024 * KiB],
  ['POST', '/api/trpc/rules.create', 1024 * KiB],
  ['POST', '/api/trpc/rules.list', 1024 * KiB],
  ['POST', '/api/trpc/rules.get', 1024 * KiB],
  ['POST', '/api/trpc/rules.update', 1024 * KiB],
  ['POST', '/api/trpc/rules.delete', 1024 * KiB],
];
/** Routes that only read: hostile parameters instead. */
const QUERY_ROUTES: [method: string, path: string][] = [
  ['GET', `/api/flash/${'%00'.repeat(3)}`],
  ['GET', `/api/flash/${'a'.repeat(10_000)}`],
  ['GET', `/api/flash?error=${'x'.repeat(5_000)}`],
  ['GET', '/api/admin/errors?limit=abc'],
  ['GET', '/api/admin/errors?limit=1e309&offset=-1'],
  ['GET', '/api/rules?all=maybe'],
  ['GET', '/api/rules?limit=101'],
  ['GET', `/api/rules/${'%ff'.repeat(100)}`],
  ['GET', `/api/rules/${'r'.repeat(5_000)}`],
  ['DELETE', `/api/rules/${'d'.repeat(5_000)}`],
  ['GET', '/api/admin/storage/tables/sqlite_master'],
  ['GET', "/api/admin/storage/tables/users'--"],
  ['GET', '/api/admin/storage/tables/users?offset=99999999999999999999'],
  ['GET', '/api/admin/storage/tables/users?limit=501'],
];

const isTrpc = (path: string) => path.startsWith('/api/trpc/');
async function expectClientError(res: Response, path: string) {
  expect(res.status, path).toBeGreaterThanOrEqual(400);
  expect(res.status, path).toBeLessThan(500);
  // tRPC answers refusals in its own JSON envelope; every other route with a problem body.
  if (isTrpc(path)) expect(JSON.parse(await res.text())).toHaveProperty('error.data.httpStatus', res.status);
  else expect(res.headers.get('content-type')).toBe('application/problem+json');
}

describe('oversize and malformed bodies: 4xx problem bodies, never 5xx', () => {
  test.each(BODY_ROUTES)('%s %s: one byte over the limit -> 413', async (method, path, limit) => {
    const res = await send(method, path, `"${'x'.repeat(limit)}"`);
    expect(res.status).toBe(413);
    await expectClientError(res, path);
  });

  const bodyRoutesWithBody = BODY_ROUTES.filter(([, path]) => !path.startsWith('/api/admin/storage/'));
  test.each(bodyRoutesWithBody)('%s %s: malformed JSON, wrong shapes and types', async (method, path) => {
    const shapes = ['{', '{"a":', 'null', '[]', '"text"', '12', '\u0000'];
    // Every field of rules.list is optional (unknown keys are dropped), so only its other routes get this one.
    if (!path.endsWith('rules.list')) shapes.push('{"query": 1, "name": [], "rules": "x", "id": {}}');
    for (const body of shapes) await expectClientError(await send(method, path, body), `${path} ${body}`);
    await expectClientError(await send(method, path, 'name=x', 'application/x-www-form-urlencoded'), path);
  });

  test.each(QUERY_ROUTES)('%s %s', async (method, path) => {
    await expectClientError(await send(method, path), path);
  });

  test('a legacy error code of control and invalid bytes resolves as UNKNOWN', async () => {
    const res = await send('GET', '/api/flash?error=%00%ff');
    expect(res.status).toBe(200);
    expect((await res.json()).code).toBe('UNKNOWN');
  });

  const runs = Number(process.env.FC_RUNS ?? 100);
  test.each(bodyRoutesWithBody)(
    '%s %s: random bodies never get a 5xx',
    async (method, path) => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue(),
            fc.string(),
            fc.record({
              source: fc.oneof(fc.constantFrom('angular', 'worker', 'browser'), fc.anything()),
              severity: fc.oneof(fc.constantFrom('low', 'critical'), fc.anything()),
              message: fc.oneof(fc.string(), fc.anything()),
              context: fc.anything(),
              url: fc.oneof(fc.webUrl(), fc.string()),
              name: fc.oneof(fc.string(), fc.anything()),
              rules: fc.oneof(fc.array(fc.string()), fc.anything()),
              description: fc.anything(),
              query: fc.oneof(fc.string(), fc.constantFrom('select 1', 'values (1)', 'pragma x', 'select 1; select 2')),
              timeoutMs: fc.anything(),
              maxRows: fc.anything(),
              id: fc.anything(),
              patch: fc.anything(),
            }),
          ),
          async (body) => {
            const res = await send(method, path, typeof body === 'string' ? body : JSON.stringify(body));
            expect(res.status).toBeLessThan(500);
            if (res.status >= 400 && !isTrpc(path))
              expect(res.headers.get('content-type')).toBe('application/problem+json');
          },
        ),
        { numRuns: runs },
      );
    },
    60_000,
  );

  test('random read-only queries never get a 5xx and never change the store', async () => {
    const words = [
      'select',
      'with',
      'values',
      'attach',
      'pragma',
      'delete',
      'from',
      'users',
      ';',
      "'",
      '--',
      '/*',
      '*',
      '1',
      '(',
      ')',
      'x',
    ];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...words), { maxLength: 8 }), async (parts) => {
        const res = await send('POST', '/api/admin/neon/query', JSON.stringify({ query: parts.join(' ') || ' ' }));
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: Math.min(runs, 60) },
    );
    expect((await store.listUsers()).length).toBe(1);
  }, 60_000);
});
