import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../src/server/store/open.js';
import { startSession } from '../../../src/server/auth/sessions.js';
import { type ServeProcess, startServe } from '../../support/serve-process.js';
import { startServer, type TestServer } from '../../support/http-server.js';
import { stamped, until } from '../../support/queue.js';

const dir = mkdtempSync(join(tmpdir(), 'flc-workflow-'));
const running: ServeProcess[] = [];
const held: ServerResponse[] = [];
let lists: TestServer;

beforeAll(async () => {
  lists = await startServer((req, res) => {
    // The first download of /held never ends: the server dies during it.
    if (req.url === '/held' && !lists.requests.slice(0, -1).some((r) => r.path === '/held')) {
      res.writeHead(200, { 'content-type': 'text/plain' }).write('||held.example^\n');
      held.push(res);
      return;
    }
    const name = req.url?.slice(1) ?? '';
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`||${name}.example^\n||x.${name}.example^\n! c\n`);
  });
});
afterAll(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const r of held) r.destroy();
  await lists.close();
  rmSync(dir, { recursive: true, force: true });
});

async function caller(db: string, email: string, tier: string) {
  const store = await openStore(db);
  const user = await store.createUser({ email, role: 'user', tier, password: { hash: 'h', salt: 's', iterations: 1 } });
  const token = (await startSession(store, user, Date.now())).token;
  await store.close();
  return (base: string, method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, json: await r.json() }));
}

const configuration = (...paths: string[]) => ({
  name: 'Workflow',
  sources: paths.map((p) => ({ source: `${lists.url}${p}` })),
  transformations: ['Deduplicate', 'RemoveComments'],
});

interface Step {
  name: string;
  state: string;
  attempts: number;
  startedAt: string | null;
  finishedAt: string | null;
}

describe('compile workflows', () => {
  test('a workflow killed mid-fetch resumes after its last finished step, and ends as a compile does', async () => {
    const db = join(dir, 'flc.db');
    const as = await caller(db, 'wf@example.org', 'pro');
    const other = await caller(db, 'other@example.org', 'pro');
    const args = ['--db', db, '--allow-private-sources', '--queue-lease', '1'];
    const first = await startServe(args);
    running.push(first);
    const config = configuration('/first', '/held', '/third');
    const started = await as(first.url, 'POST', '/api/workflow/compile', { configuration: config });
    expect(started.status).toBe(202);
    expect(started.json).toMatchObject({ success: true, status: 'queued' });
    const id = started.json.workflowId;
    expect(started.json.requestId).toBe(id);
    const mid = await until(
      async () => (await as(first.url, 'GET', `/api/workflow/${id}`)).json,
      (w) => w.steps[1].state === 'running' && held.length === 1,
    );
    expect(mid.steps.map((s: Step) => s.state)).toEqual([
      'completed',
      'running',
      'pending',
      'pending',
      'pending',
      'pending',
    ]);
    expect((await other(first.url, 'GET', `/api/workflow/${id}`)).status).toBe(404);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = await startServe(args);
    running.push(second);
    const end = await until(
      async () => (await as(second.url, 'GET', `/api/workflow/${id}`)).json,
      (w) => w.status === 'completed',
      60_000,
    );
    expect(end.status).toBe('completed');
    expect(end.attempts).toBe(2);
    expect(end.steps.map((s: Step) => [s.name, s.state, s.attempts])).toEqual([
      [`fetch ${lists.url}/first`, 'completed', 1],
      [`fetch ${lists.url}/held`, 'completed', 2],
      [`fetch ${lists.url}/third`, 'completed', 1],
      ['transform', 'completed', 1],
      ['assemble', 'completed', 1],
      ['store', 'completed', 1],
    ]);
    for (const s of end.steps as Step[]) expect(s.finishedAt! >= s.startedAt!).toBe(true);
    // The first source was fetched once: the second run took it from its step.
    expect(lists.requests.filter((r) => r.path === '/first')).toHaveLength(1);
    const sync = (await as(second.url, 'POST', '/api/compile', { configuration: config })).json;
    expect(stamped(end.result.rules)).toEqual(stamped(sync.rules));
    // A workflow is a queued job too: its result and history show there.
    expect((await as(second.url, 'GET', `/api/queue/results/${id}`)).json.status).toBe('completed');
    expect((await other(second.url, 'GET', `/api/queue/results/${id}`)).status).toBe(404);
    await second.stop();
  }, 120_000);
});
