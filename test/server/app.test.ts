import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { Validator } from '@seriousme/openapi-schema-validator';
import { testApp } from '../support/test-app.js';
import { BODY_LIMITS } from '../../src/server/routes/rules.js';
import { validateRule } from '../../src/core/ast/validate-rule.js';
import { SafeSourceReader } from '../../src/node/safe-reader.js';

let clock = Date.parse('2026-01-01T00:00:00Z');
const { request } = testApp({
  version: '9.9.9',
  now: () => clock,
  startedAt: clock,
  makeReader: () =>
    new SafeSourceReader({ allowPrivate: false, timeoutMs: 1000, retries: 0, maxBytes: 1024, userAgent: 'test' }),
});
const post = (path: string, body: unknown) =>
  request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const noDuration = (o: Record<string, unknown>) => ({ ...o, duration: 'x' });

describe('info routes', () => {
  test('GET /api and /api/version', async () => {
    expect(await (await request('/api')).json()).toMatchObject({ name: 'flc', version: '9.9.9' });
    expect(await (await request('/api/version')).json()).toMatchObject({ version: '9.9.9' });
  });

  test('GET /api/health is computed at most every 30 s', async () => {
    const first = await (await request('/api/health')).json();
    clock += 29_000;
    expect((await (await request('/api/health')).json()).timestamp).toBe(first.timestamp);
    clock += 2_000;
    const third = await request('/api/health');
    expect((await third.json()).timestamp).not.toBe(first.timestamp);
    expect(third.headers.get('cache-control')).toBe('public, max-age=30');
  });

  test('without a challenge secret or DSN the browser config routes say so', async () => {
    expect(await (await request('/api/turnstile-config')).json()).toEqual({ success: true, enabled: false });
    expect(await (await request('/api/sentry-config')).json()).toEqual({ success: true, enabled: false });
  });

  test('GET /api/schemas gives JSON Schemas of the request bodies', async () => {
    const body = await (await request('/api/schemas')).json();
    expect(Object.keys(body.schemas).sort()).toEqual([
      'astParseRequest',
      'astWalkRequest',
      'configuration',
      'validateListRequest',
      'validateRuleRequest',
    ]);
    expect(body.schemas.configuration.required).toEqual(['name', 'sources']);
    expect(body.schemas.configuration.additionalProperties).toBe(false);
  });

  test('a plain GET to the WebSocket routes is 426', async () => {
    for (const path of ['/api/ws/compile', '/ws/compile']) expect((await request(path)).status).toBe(426);
  });

  test('unknown routes are 404 problem details', async () => {
    const res = await request('/api/nope');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 404, title: 'Not Found' });
  });
});

describe('POST /api/validate-rule', () => {
  test.each([
    [{ rule: '||example.com^', testUrl: 'https://a.example.com/' }],
    [{ rule: 'example.com##' }],
    [{ rule: '||a.com^$bogus', strict: true }],
  ])('200 with the core body for %j', async (body) => {
    const res = await post('/api/validate-rule', body);
    expect(res.status).toBe(200);
    expect(noDuration(await res.json())).toEqual(noDuration(JSON.parse(JSON.stringify(validateRule(body)))));
  });

  test.each([
    [{ rule: '' }, 'rule must not be empty'],
    [{ rule: '||a^', testUrl: 'nope' }, 'testUrl must be a valid URL'],
    [{ rule: '', testUrl: 'nope' }, 'rule must not be empty; testUrl must be a valid URL'],
    [{}, 'rule must be a string'],
  ])('422 joins the schema messages: %j', async (body, error) => {
    const res = await post('/api/validate-rule', body);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ success: false, error });
  });

  test('400 for malformed JSON, as problem details', async () => {
    const res = await post('/api/validate-rule', '{"rule": ');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, detail: 'Malformed JSON in request body' });
  });

  test('413 for an oversized body, before parsing', async () => {
    const res = await post('/api/validate-rule', `{"rule": "${'a'.repeat(BODY_LIMITS.rule)}"`);
    expect(res.status).toBe(413);
  });
});

describe('POST /api/ast/walk', () => {
  test('200 with nodes, summary and duration', async () => {
    const res = await post('/api/ast/walk', { rules: ['||a.com^$app=x|y'], nodeTypes: ['App'], includeContext: true });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ success: true, summary: { App: 2, total: 2 } });
    expect(body.nodes[0]).toMatchObject({ type: 'App', depth: 4, key: 'apps', index: 0 });
    expect(body.duration).toMatch(/^\d+ms$/);
  });

  test.each([
    [{}, /exactly one of rules and text is required/],
    [{ rules: ['a'], text: 'a' }, /exactly one of rules and text is required/],
    [{ text: 'a', nodeTypes: ['Nope'] }, /unknown node type "Nope"/],
    [{ text: 'a', maxDepth: 51 }, /maxDepth must be between 0 and 50/],
    [{ rules: Array(5001).fill('a') }, /at most 5000 items/],
  ])('422: %j', async (body, message) => {
    const res = await post('/api/ast/walk', body);
    expect(res.status).toBe(422);
    const json = await res.json();
    expect(json.success).toBe(false);
    expect(json.error).toMatch(message);
  });

  test('400 malformed JSON and 413 oversized body', async () => {
    expect((await post('/api/ast/walk', '[')).status).toBe(400);
    expect((await post('/api/ast/walk', JSON.stringify({ text: 'x'.repeat(BODY_LIMITS.list) }))).status).toBe(413);
  });
});

describe('POST /api/ast/parse and /api/validate', () => {
  test('parse gives type, category, dialect, validity and tree per rule', async () => {
    const res = await post('/api/ast/parse', { rules: ['||a.com^$dnstype=A', 'example.com##'] });
    const body = await res.json();
    expect(
      body.results.map((r: { ruleType: string; syntax: string; valid: boolean }) => [r.ruleType, r.syntax, r.valid]),
    ).toEqual([
      ['NetworkRule', 'AdGuard', true],
      ['InvalidRule', 'Common', false],
    ]);
  });

  test('validate reports per-line errors with line numbers and totals', async () => {
    const res = await post('/api/validate', { text: '! c\n||ok.com^\n\nexample.com##\n||a.com^$bogus', strict: true });
    const body = await res.json();
    expect(body).toMatchObject({
      success: true,
      valid: false,
      totals: { lines: 5, valid: 1, invalid: 2, comments: 1, empty: 1 },
    });
    expect(body.errors.map((e: { line: number }) => e.line)).toEqual([4, 5]);
  });

  test.each([
    ['/api/ast/parse', { rules: [] }],
    ['/api/validate', {}],
  ])('422 on %s', async (path, body) => {
    expect((await post(path, body)).status).toBe(422);
  });
});

describe('OpenAPI', () => {
  test('/api/openapi.json is a valid OpenAPI 3.0.3 document listing every route', async () => {
    const doc = await (await request('/api/openapi.json')).json();
    expect(doc.openapi).toBe('3.0.3');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api',
        '/api/admin',
        '/api/admin/agents/sessions',
        '/api/admin/auth/config',
        '/api/admin/errors',
        '/api/admin/neon/branches',
        '/api/admin/neon/project',
        '/api/admin/neon/query',
        '/api/admin/storage/checkpoint',
        '/api/admin/storage/prune',
        '/api/admin/storage/tables',
        '/api/admin/storage/tables/{name}',
        '/api/admin/storage/vacuum',
        '/api/ast/parse',
        '/api/ast/walk',
        '/api/auth/change-password',
        '/api/auth/get-session',
        '/api/auth/providers',
        '/api/auth/sign-in/email',
        '/api/auth/sign-out',
        '/api/auth/sign-out-all',
        '/api/auth/sign-up/email',
        '/api/compile',
        '/api/compile/batch',
        '/api/compile/stream',
        '/api/compile/async',
        '/api/compile/batch/async',
        '/api/compile/container',
        '/api/queue/results/{id}',
        '/api/queue/cancel/{id}',
        '/api/queue/stats',
        '/api/queue/history',
        '/api/queue/events/{id}',
        '/api/workflow/compile',
        '/api/workflow/{id}',
        '/api/configuration/defaults',
        '/api/configuration/resolve',
        '/api/configuration/validate',
        '/api/container/status',
        '/api/deployments',
        '/api/deployments/stats',
        '/api/errors/codes',
        '/api/errors/codes/{code}',
        '/api/explain',
        '/api/flash',
        '/api/flash/{token}',
        '/api/health',
        '/api/health/db-smoke',
        '/api/health/latest',
        '/api/keys',
        '/api/keys/{id}',
        '/api/log/frontend-error',
        '/api/metrics',
        '/api/metrics/prometheus',
        '/api/notify',
        '/api/openapi.json',
        '/api/rules',
        '/api/rules/{id}',
        '/api/schemas',
        '/api/sentry-config',
        '/api/trpc/ast.parse',
        '/api/trpc/ast.walk',
        '/api/trpc/compile',
        '/api/trpc/rules.create',
        '/api/trpc/rules.delete',
        '/api/trpc/rules.get',
        '/api/trpc/rules.list',
        '/api/trpc/rules.update',
        '/api/trpc/validateRule',
        '/api/trpc/{procedure}',
        '/api/turnstile-config',
        '/api/validate',
        '/api/validate-rule',
        '/api/version',
        '/api/ws/compile',
        '/compile/stream',
        '/ws/compile',
        '/api/admin/users',
        '/api/admin/users/{id}',
        '/api/admin/users/{id}/ban',
        '/api/admin/users/{id}/unban',
        '/api/admin/usage/{userId}',
        '/admin/local-users',
        '/admin/local-users/{id}',
        '/admin/local-users/{id}/reset-password',
        '/admin/usage/{userId}',
        '/admin/system/my-permissions',
        '/admin/system/users/{userId}/data-export',
        '/admin/system/users/{userId}/data-erase',
        '/admin/system/config/export',
        '/admin/system/config/import',
        '/admin/system/config/snapshots',
        '/admin/system/config/snapshots/{id}',
        '/admin/system/config/snapshots/{id}/revert',
        '/admin/config/feature-flags',
        '/admin/config/feature-flags/{key}',
        '/admin/system/announcements',
        '/admin/system/announcements/{id}',
        '/admin/system/audit',
        '/admin/system/endpoints',
        '/admin/system/endpoints/{id}',
        '/admin/system/my-context',
        '/admin/system/roles',
        '/admin/system/roles/assign',
        '/admin/system/roles/assignments',
        '/admin/system/roles/revoke',
        '/admin/system/roles/{id}',
        '/admin/system/scopes',
        '/admin/system/scopes/{name}',
        '/admin/system/tiers',
        '/admin/system/tiers/{name}',
      ].sort(),
    );
  });
});

describe('hostile bodies', () => {
  const runs = Number(process.env.FC_RUNS ?? 200);
  test.each([
    '/api/validate-rule',
    '/api/ast/walk',
    '/api/ast/parse',
    '/api/validate',
    '/api/compile',
    '/api/compile/stream',
    '/api/compile/batch',
    '/api/explain',
    '/api/configuration/validate',
    '/api/configuration/resolve',
    '/api/trpc/compile',
    '/api/trpc/validateRule',
    '/api/trpc/ast.parse',
    '/api/trpc/ast.walk',
  ])('%s never answers 5xx', async (path) => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.string(),
          fc.record({
            rule: fc.anything(),
            rules: fc.anything(),
            text: fc.anything(),
            nodeTypes: fc.anything(),
            maxDepth: fc.anything(),
            domain: fc.oneof(fc.anything(), fc.domain()),
            ruleSet: fc.anything(),
            configuration: fc.oneof(
              fc.anything(),
              fc.record({ name: fc.string(), sources: fc.array(fc.record({ source: fc.string() })) }),
            ),
            requests: fc.anything(),
            config: fc.anything(),
            override: fc.anything(),
          }),
        ),
        async (body) => {
          const res = await post(path, typeof body === 'string' ? body : JSON.stringify(body));
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: runs },
    );
  });
});
