import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { startServer, type TestServer } from '../support/http-server.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { call, PASSWORD } from '../support/serve-accounts.js';
import { runCli } from '../support/cli.js';
import { testApp } from '../support/test-app.js';
import { memoryReader } from '../support/memory-reader.js';
import { CompilePool } from '../../src/node/compile-pool.js';

// `POST /api/explain` on a real `flc serve` (its worker pool), over the fixture of `flc explain`'s
// tests served by HTTP: the same answer as `flc explain --json`.
const LISTS = resolve(import.meta.dirname, '../fixtures/explain/lists');
let lists: TestServer;
let server: ServeProcess;
let dir: string;
let token: string;
let configuration: Record<string, unknown>;

beforeAll(async () => {
  lists = await startServer((req, res) => {
    try {
      res.writeHead(200).end(readFileSync(join(LISTS, (req.url ?? '').slice(1))));
    } catch {
      res.writeHead(404).end();
    }
  });
  // The fixture's configuration with its sources read over HTTP.
  const fixture = JSON.parse(readFileSync(join(LISTS, '../config.json'), 'utf8'));
  configuration = {
    ...fixture,
    sources: fixture.sources.map((s: { source: string }) => ({ ...s, source: `${lists.url}/${s.source.slice(6)}` })),
  };
  dir = mkdtempSync(join(tmpdir(), 'flc-explain-serve-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(configuration));
  server = await startServe(['--db', join(dir, 'flc.db'), '--allow-private-sources', '--compile-workers', '1']);
  const up = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, {
    email: 'user@example.org',
    password: PASSWORD,
  });
  expect(up.status, up.text).toBe(200);
  token = up.json.token as string;
});
afterAll(async () => {
  await server?.stop();
  await lists?.close();
  rmSync(dir, { recursive: true, force: true });
});

const A = () => `${lists.url}/a.txt`;
const explainApi = (body: unknown) => call(server.url, 'POST', '/api/explain', token, body);

describe('POST /api/explain on flc serve', () => {
  test('blocked: the deciding rule with its source and line, a parent-domain rule, a removed rule', async () => {
    const res = await explainApi({ domain: 'ads.example.org', configuration });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ domain: 'ads.example.org', format: 'adblock', blocked: true });
    // ||example.org^ is about the parent and decides; the exact-name rule is kept too.
    expect(res.json.decidedBy).toMatchObject({ source: A(), line: 3, text: '||example.org^', name: 'example.org' });
    expect(res.json.rules.map((r: { text: string; line: number }) => [r.text, r.line])).toEqual([
      ['||example.org^', 3],
      ['0.0.0.0 ads.example.org', 5],
    ]);
    expect(res.json.removed).toEqual([
      expect.objectContaining({
        source: A(),
        line: 2,
        text: '0.0.0.0 ads.example.org',
        transformation: 'Deduplicate',
        code: 'duplicate',
        reason: 'a later copy of this rule is kept',
      }),
    ]);
  });

  test('the same JSON as flc explain --json, blocked or not', async () => {
    for (const [domain, code] of [
      ['ads.example.org', 0],
      ['tracker.example.net', 3],
      ['allowed.example.com', 3],
      ['video.example.org', 0],
    ] as const) {
      const cli = await runCli(['explain', domain, '-c', join(dir, 'config.json'), '--no-cache', '--json']);
      expect(cli.code, cli.stderr).toBe(code);
      const res = await explainApi({ domain, configuration });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toEqual(JSON.parse(cli.stdout));
    }
  });

  test('a domain not blocked: blocked false, no deciding rule, the removed rules with step and reason', async () => {
    const res = await explainApi({ domain: 'tracker.example.net', configuration });
    expect(res.status, res.text).toBe(200);
    // The one kept rule about it applies to AAAA queries only: it does not decide.
    expect(res.json).toMatchObject({ blocked: false, decidedBy: null });
    expect(res.json.rules).toEqual([
      expect.objectContaining({ text: '||example.net^$dnstype=AAAA', line: 1, effect: 'conditional' }),
    ]);
    expect(res.json.removed).toEqual([
      expect.objectContaining({
        source: A(),
        line: 4,
        transformation: 'Validate',
        code: 'invalid-rule',
        reason: 'unsupported modifier $media',
      }),
    ]);
    const allowed = await explainApi({ domain: 'allowed.example.com', configuration });
    expect(allowed.json.removed).toEqual([
      expect.objectContaining({
        source: `${lists.url}/b.txt`,
        line: 3,
        transformation: 'Allowlist',
        code: 'allowlisted',
      }),
    ]);
    const unrelated = await explainApi({ domain: 'nothing.example', configuration });
    expect(unrelated.json).toEqual({
      domain: 'nothing.example',
      format: 'adblock',
      blocked: false,
      decidedBy: null,
      rules: [],
      removed: [],
    });
  });

  test("a saved rule set, by id: its rules' lines; another user's id is refused like an unknown one", async () => {
    const saved = await call(server.url, 'POST', '/api/rules', token, {
      name: 'mine',
      rules: ['! mine', '||example.com^', '@@||ok.example.com^'],
    });
    expect(saved.status, saved.text).toBe(201);
    const id = saved.json.ruleSet.id as string;
    const res = await explainApi({ domain: 'a.b.example.com', ruleSet: id });
    expect(res.status, res.text).toBe(200);
    expect(res.json.decidedBy).toMatchObject({ source: `flc-ruleset:${id}`, line: 2, name: 'example.com' });
    expect((await explainApi({ domain: 'ok.example.com', ruleSet: id })).json.blocked).toBe(false);
    const other = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, {
      email: 'other@example.org',
      password: PASSWORD,
    });
    const refused = await call(server.url, 'POST', '/api/explain', other.json.token, {
      domain: 'a.example.com',
      ruleSet: id,
    });
    expect(refused.status).toBe(422);
    expect(refused.json.detail).toMatch(/no saved rule set of yours has this id/);
  });

  test.each<[string, unknown, number, RegExp]>([
    ['no domain', { configuration: {} }, 400, /^domain: is required$/],
    ['a domain not a string', { domain: 7, configuration: {} }, 400, /^domain: must be a string$/],
    [
      'neither configuration nor ruleSet',
      { domain: 'a.example' },
      400,
      /^give either configuration or ruleSet, not both$/,
    ],
    [
      'both',
      { domain: 'a.example', configuration: {}, ruleSet: 'x' },
      400,
      /^give either configuration or ruleSet, not both$/,
    ],
    ['not a domain', { domain: 'not a domain', configuration: 'CONFIG' }, 422, /"not a domain" is not a domain name/],
    [
      'an invalid configuration',
      { domain: 'a.example', configuration: { name: 'x' } },
      422,
      /^Invalid configuration: sources/,
    ],
    [
      'a publishing key, refused as on every compile entry point',
      { domain: 'a.example', configuration: 'CONFIG', onSourceError: 'stale' },
      422,
      /^Invalid configuration: onSourceError: "stale" is an option of flc compile/,
    ],
    ['malformed JSON', '{"domain":', 400, /Malformed JSON/],
  ])('%s: a problem naming it', async (_what, body, status, detail) => {
    // CONFIG: the fixture's configuration, with the body's onSourceError when it has one.
    const { onSourceError, ...asked } = body as { configuration?: unknown; onSourceError?: string };
    const own = { ...configuration, ...(onSourceError ? { onSourceError } : {}) };
    const res = await explainApi(asked.configuration === 'CONFIG' ? { ...asked, configuration: own } : body);
    expect(res.status, res.text).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.json).toMatchObject({ status, instance: '/api/explain' });
    expect(res.json.detail).toMatch(detail);
  });

  test('anonymous callers are refused, as on the other compile routes', async () => {
    const res = await call(server.url, 'POST', '/api/explain', undefined, { domain: 'a.example', configuration });
    expect(res.status).toBe(401);
  });
});

describe('POST /api/explain without a worker pool (an app built in-process)', () => {
  test('answers as the pool does', async () => {
    const files = Object.fromEntries(
      ['a.txt', 'b.txt'].map((f) => [`/lists/${f}`, readFileSync(join(LISTS, f), 'utf8')]),
    );
    const makeReader = () => ({ ...memoryReader(files), close: async () => undefined });
    const fixture = JSON.parse(readFileSync(join(LISTS, '../config.json'), 'utf8'));
    const pool = new CompilePool({ size: 1 });
    try {
      const answers = await Promise.all(
        [testApp({ makeReader }), testApp({ makeReader, pool })].map(async ({ request }) => {
          const res = await request('/api/explain', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ domain: 'ads.example.org', configuration: fixture }),
          });
          expect(res.status).toBe(200);
          return res.json();
        }),
      );
      expect(answers[0]).toMatchObject({ blocked: true, decidedBy: { source: '/lists/a.txt', line: 3 } });
      expect(answers[0].removed).toHaveLength(1);
      expect(answers[1]).toEqual(answers[0]);
    } finally {
      await pool.destroy();
    }
  });
});
