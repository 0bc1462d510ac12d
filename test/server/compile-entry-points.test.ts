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

async function json(method: string, path: string, body?: unknown) {
  const res = await call(method, path, body);
  const text = await res.text();
  expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
  return JSON.parse(text);
}

/** A queued job's stored result, once it has finished. */
async function finished(path: string) {
  for (let i = 0; i < 300; i += 1) {
    const job = await json('GET', path);
    if (job.status === 'completed' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${path} did not finish`);
}

/** The rules (without comments) each entry point answers with. */
const ENTRY_POINTS: [string, () => Promise<string[]>][] = [
  ['POST /api/compile', async () => (await json('POST', '/api/compile', { configuration })).rules],
  [
    'POST /api/compile/batch',
    async () => (await json('POST', '/api/compile/batch', { requests: [{ id: 'a', configuration }] })).results[0].rules,
  ],
  [
    'POST /api/compile/stream',
    async () => {
      const res = await call('POST', '/api/compile/stream', { configuration });
      const text = await res.text();
      const result = /event: result\ndata: (.*)\n/.exec(text);
      if (!result) throw new Error(`no result event in ${text.slice(-500)}`);
      return JSON.parse(result[1]).rules;
    },
  ],
  [
    'WebSocket /api/ws/compile',
    async () => {
      const ws = new WebSocket(`${flc.url.replace('http', 'ws')}/api/ws/compile`, {
        headers: { authorization: `Bearer ${token}` },
      });
      try {
        return await new Promise<string[]>((resolve, reject) => {
          ws.on('message', (data) => {
            const m = JSON.parse(String(data));
            if (m.type === 'welcome' || m.type === 'connected')
              ws.send(JSON.stringify({ type: 'compile', sessionId: 's', configuration }));
            if (m.type === 'compile:complete') resolve(m.rules);
            if (m.type === 'compile:error' || m.type === 'error') reject(new Error(m.error));
          });
          ws.once('error', reject);
        });
      } finally {
        ws.close();
      }
    },
  ],
  ['tRPC compile', async () => (await json('POST', '/api/trpc/compile', { configuration })).result.data.rules],
  [
    'POST /api/compile/async',
    async () => {
      const { requestId } = await json('POST', '/api/compile/async', { configuration });
      const job = await finished(`/api/queue/results/${requestId}`);
      expect(job.status, JSON.stringify(job)).toBe('completed');
      return job.result.rules;
    },
  ],
  [
    'POST /api/compile/batch/async',
    async () => {
      const { requestId } = await json('POST', '/api/compile/batch/async', { requests: [{ id: 'a', configuration }] });
      const job = await finished(`/api/queue/results/${requestId}`);
      expect(job.status, JSON.stringify(job)).toBe('completed');
      return job.result.results[0].rules;
    },
  ],
  [
    'POST /api/workflow/compile',
    async () => {
      const { workflowId } = await json('POST', '/api/workflow/compile', { configuration });
      const job = await finished(`/api/workflow/${workflowId}`);
      expect(job.status, JSON.stringify(job)).toBe('completed');
      return job.result.rules;
    },
  ],
  ['POST /api/compile/container', async () => (await json('POST', '/api/compile/container', { configuration })).rules],
];

describe('every compile entry point of a real server', () => {
  test.each(ENTRY_POINTS)(
    '%s compiles a flc-ruleset: source through the server’s reader',
    async (_name, run) => {
      const rules = (await run()).filter((l) => !l.startsWith('!'));
      expect(rules).toEqual(['||saved-two.example^', '||saved-one.example^']);
    },
    60_000,
  );
});
