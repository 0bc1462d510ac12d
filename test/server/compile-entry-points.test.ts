import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../../src/server/start.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import type { Store } from '../../src/server/store/store.js';

/**
 * Every compile entry point of a real `flc serve` (its worker pool, its container process, its
 * queue) against the same configuration: a saved rule set as the source, which only the server's
 * reader can read, for the caller who owns it.
 */
let flc: RunningServer;
let dir: string;
let store: Store;
let token: string;
let configuration: { name: string; sources: { source: string; name: string }[]; transformations: string[] };
const RULES = ['||saved-one.example^', '||saved-two.example^', '||saved-one.example^'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flc-entry-points-'));
  const location = { engine: 'sqlite' as const, file: join(dir, 'flc.db') };
  flc = await startServer({
    host: '127.0.0.1',
    port: 0,
    version: '0.0.1',
    allowPrivateSources: false,
    store: location,
    log: () => undefined,
  });
  store = await openStore(location.file);
  const password = { hash: 'h', salt: 's', iterations: 1 };
  const pro = await store.createUser({ email: 'pro@example.org', role: 'user', tier: 'pro', password });
  token = (await startSession(store, pro, Date.now())).token;
  const saved = await call('POST', '/api/rules', { name: 'mine', rules: RULES });
  expect(saved.status).toBe(201);
  const { ruleSet } = await saved.json();
  configuration = {
    name: 'saved',
    sources: [{ source: `flc-ruleset:${ruleSet.id}`, name: 'mine' }],
    transformations: ['Deduplicate'],
  };
}, 60_000);
afterAll(async () => {
  await flc?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

function call(method: string, path: string, body?: unknown) {
  return fetch(`${flc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A queued job's stored result, once it has finished. */
async function finished(path: string) {
  for (let i = 0; i < 300; i += 1) {
    const job = await (await call('GET', path)).json();
    if (job.status === 'completed' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${path} did not finish`);
}

/** What an entry point answered: the rules and warnings of a compile, or the error a client reads. */
interface Outcome {
  rules?: string[];
  warnings?: string[];
  error?: string;
}
type Config = Record<string, unknown>;
const refused = async (res: Response): Promise<Outcome> => {
  const body = await res.json();
  return { error: body.error ?? body.detail ?? body.error?.message };
};
const answer = (body: { rules: string[]; warnings?: string[] }): Outcome => ({
  rules: body.rules,
  warnings: body.warnings ?? [],
});
/** A queued job's outcome: refused on acceptance, failed, or its (first) result. */
async function queued(path: string, body: unknown, view: (id: string) => string, pick: (r: never) => never) {
  const res = await call('POST', path, body);
  if (res.status >= 300) return refused(res);
  const accepted = await res.json();
  const job = await finished(view(accepted.requestId));
  if (job.status === 'failed') return { error: job.error };
  const result = pick(job.result as never) as { success: boolean; error?: string; rules: string[] };
  return result.success ? answer(result) : { error: result.error };
}
const warnEvents = (events: { type: string; data: { level?: string; message?: string } }[]) =>
  events.filter((e) => e.type === 'log' && e.data.level === 'warn').map((e) => String(e.data.message));

const ENTRY_POINTS: [string, (configuration: Config) => Promise<Outcome>][] = [
  [
    'POST /api/compile',
    async (configuration) => {
      const res = await call('POST', '/api/compile', { configuration });
      return res.status === 200 ? answer(await res.json()) : refused(res);
    },
  ],
  [
    'POST /api/compile/batch',
    async (configuration) => {
      const res = await call('POST', '/api/compile/batch', { requests: [{ id: 'a', configuration }] });
      if (res.status !== 200) return refused(res);
      const [item] = (await res.json()).results;
      return item.success ? answer(item) : { error: item.error };
    },
  ],
  [
    'POST /api/compile/stream',
    async (configuration) => {
      const res = await call('POST', '/api/compile/stream', { configuration });
      if (res.status !== 200) return refused(res);
      const events = [...(await res.text()).matchAll(/event: (.*)\ndata: (.*)\n/g)].map(([, type, data]) => ({
        type,
        data: JSON.parse(data),
      }));
      const result = events.find((e) => e.type === 'result');
      const error = events.find((e) => e.type === 'error');
      return error ? { error: error.data.error } : { rules: result?.data.rules, warnings: warnEvents(events) };
    },
  ],
  [
    'WebSocket /api/ws/compile',
    async (configuration) => {
      const ws = new WebSocket(`${flc.url.replace('http', 'ws')}/api/ws/compile`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const events: { type: string; data: { level?: string; message?: string } }[] = [];
      try {
        return await new Promise<Outcome>((resolve, reject) => {
          ws.on('message', (data) => {
            const m = JSON.parse(String(data));
            if (m.type === 'welcome') ws.send(JSON.stringify({ type: 'compile', sessionId: 's', configuration }));
            if (m.type === 'event') events.push({ type: m.eventType, data: m.data });
            if (m.type === 'compile:complete') resolve({ rules: m.rules, warnings: warnEvents(events) });
            if (m.type === 'compile:error') resolve({ error: m.error });
          });
          ws.once('error', reject);
        });
      } finally {
        ws.close();
      }
    },
  ],
  [
    'tRPC compile',
    async (configuration) => {
      const body = await (await call('POST', '/api/trpc/compile', { configuration })).json();
      return body.error ? { error: body.error.message } : answer(body.result.data);
    },
  ],
  [
    'POST /api/compile/async',
    (configuration) =>
      queued(
        '/api/compile/async',
        { configuration },
        (id) => `/api/queue/results/${id}`,
        (r) => r,
      ),
  ],
  [
    'POST /api/compile/batch/async',
    (configuration) =>
      queued(
        '/api/compile/batch/async',
        { requests: [{ id: 'a', configuration }] },
        (id) => `/api/queue/results/${id}`,
        (r: { results: never[] }) => r.results[0] as never,
      ),
  ],
  [
    'POST /api/workflow/compile',
    (configuration) =>
      queued(
        '/api/workflow/compile',
        { configuration },
        (id) => `/api/workflow/${id}`,
        (r) => r,
      ),
  ],
  [
    'POST /api/compile/container',
    async (configuration) => {
      const res = await call('POST', '/api/compile/container', { configuration });
      return res.status === 200 ? answer(await res.json()) : refused(res);
    },
  ],
];

describe('every compile entry point of a real server', () => {
  test.each(ENTRY_POINTS)(
    '%s compiles a flc-ruleset: source through the server’s reader',
    async (_name, run) => {
      const outcome = await run(configuration);
      expect(outcome.error).toBeUndefined();
      expect(outcome.rules?.filter((l) => !l.startsWith('!'))).toEqual([
        '||saved-two.example^',
        '||saved-one.example^',
      ]);
      expect(outcome.warnings).toEqual([]);
    },
    60_000,
  );

  test.each(ENTRY_POINTS)(
    '%s tells of a deprecated key',
    async (_name, run) => {
      const sources = configuration.sources.map(({ source, ...rest }) => ({ ...rest, url: source }));
      const outcome = await run({ ...configuration, sources });
      expect(outcome.error).toBeUndefined();
      expect(outcome.rules?.length).toBeGreaterThan(0);
      expect(outcome.warnings).toEqual([expect.stringMatching(/sources\[0\]\.url is deprecated; use .*source/)]);
    },
    60_000,
  );
});

describe('the tier’s features on every compile entry point', () => {
  beforeAll(async () => {
    await store.updateConfigRow(
      'tiers',
      { tier_name: 'pro' },
      { features: { maxSources: 1, maxBatch: 1, asyncCompile: true } },
      new Date().toISOString(),
    );
    // The server re-reads the access tables another process changed within a second.
    await new Promise((r) => setTimeout(r, 1_100));
  });
  afterAll(() => store.updateConfigRow('tiers', { tier_name: 'pro' }, { features: {} }, new Date().toISOString()));

  test.each(ENTRY_POINTS)(
    '%s refuses more sources than the tier allows',
    async (_name, run) => {
      const two = { ...configuration, sources: [...configuration.sources, ...configuration.sources] };
      expect((await run(two)).error).toMatch(/at most 1 sources for the pro tier/);
    },
    60_000,
  );

  test('batches above the tier’s size, and async compiles of a tier without them, are refused', async () => {
    const requests = [
      { id: 'a', configuration },
      { id: 'b', configuration },
    ];
    for (const path of ['/api/compile/batch', '/api/compile/batch/async']) {
      const res = await call('POST', path, { requests });
      expect(res.status, path).toBe(422);
      expect((await res.json()).error).toMatch(/at most 1 requests in a batch for the pro tier/);
    }
    await store.updateConfigRow(
      'tiers',
      { tier_name: 'pro' },
      { features: { asyncCompile: false } },
      new Date().toISOString(),
    );
    await new Promise((r) => setTimeout(r, 1_100));
    for (const path of ['/api/compile/async', '/api/workflow/compile']) {
      const res = await call('POST', path, { configuration });
      expect(res.status, path).toBe(403);
      expect((await res.json()).detail).toMatch(/pro tier does not include async compiles/);
    }
  }, 30_000);
});
