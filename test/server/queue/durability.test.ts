import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../src/server/store/open.js';
import { startSession } from '../../../src/server/auth/sessions.js';
import { freshPostgresUrl, POSTGRES_SKIP_REASON, POSTGRES_URL } from '../../support/postgres.js';
import { type ServeProcess, startServe } from '../../support/serve-process.js';
import { startServer, type TestServer } from '../../support/http-server.js';
import { stamped, until } from '../../support/queue.js';

/**
 * CONTRACT section 5: an accepted job survives a crash and completes exactly once. Fifty jobs are
 * queued on a real `flc serve`, the process is killed (SIGKILL, so nothing is released) while some
 * run, and a new process on the same store finishes them.
 */
const JOBS = 50;
const dir = mkdtempSync(join(tmpdir(), 'flc-queue-'));
const running: ServeProcess[] = [];
let lists: TestServer;

beforeAll(async () => {
  // Each job reads its own list, slowly enough that some are mid-download when the server dies.
  lists = await startServer((req, res) => {
    const n = Number(/\/list\/(\d+)/.exec(req.url ?? '')?.[1] ?? -1);
    setTimeout(() => {
      const rules = Array.from({ length: 200 }, (_, i) => `||host${(i * 7 + n) % 150}.job${n}.example^`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${rules.join('\n')}\n! note\n`);
    }, 150);
  });
});
afterAll(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await lists.close();
  rmSync(dir, { recursive: true, force: true });
});

const configuration = (n: number) => ({
  name: `Job ${n}`,
  sources: [{ source: `${lists.url}/list/${n}` }],
  transformations: ['Deduplicate', 'RemoveComments', 'Compress'],
});

async function call(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

interface View {
  requestId: string;
  status: string;
  attempts: number;
  finishedAt: string | null;
  result?: { rules: string[]; ruleCount: number };
}

async function crashAndRecover(db: string) {
  // A user whose tier has no rate limit: the test polls often.
  const store = await openStore(db);
  const user = await store.createUser({
    email: 'queue@example.org',
    role: 'user',
    tier: 'admin',
    password: { hash: 'h', salt: 's', iterations: 1 },
  });
  const token = (await startSession(store, user, Date.now())).token;
  // Fifty jobs queued at once: more than a tier holds by default (maxQueuedJobs, 20).
  await store.updateConfigRow(
    'tiers',
    { tier_name: 'admin' },
    { features: { maxQueuedJobs: JOBS } },
    new Date().toISOString(),
  );
  await store.close();
  const args = ['--db', db, '--allow-private-sources', '--queue-workers', '3', '--queue-lease', '2'];

  const first = await startServe(args);
  running.push(first);
  const ids: string[] = [];
  for (let n = 0; n < JOBS; n += 1) {
    const r = await call(first.url, token, 'POST', '/api/compile/async', { configuration: configuration(n) });
    expect(r.status).toBe(202);
    ids.push(r.json.requestId);
  }
  const history = async (base: string): Promise<View[]> =>
    (await call(base, token, 'GET', '/api/queue/history?limit=100')).json.jobs;
  // Killed with some jobs done, some running and most still queued.
  const before = await until(
    () => history(first.url),
    (jobs) => jobs.filter((j) => j.status === 'completed').length >= 5 && jobs.some((j) => j.status === 'running'),
  );
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  const doneBefore = new Map(before.filter((j) => j.status === 'completed').map((j) => [j.requestId, j]));
  expect(doneBefore.size).toBeGreaterThanOrEqual(5);
  expect(doneBefore.size).toBeLessThan(JOBS);

  const second = await startServe(args);
  running.push(second);
  const after = await until(
    () => history(second.url),
    (jobs) => jobs.every((j) => j.status === 'completed'),
    120_000,
  );
  expect(after.map((j) => j.status)).toEqual(Array(JOBS).fill('completed'));
  // Jobs finished before the crash were not run again: same end, one attempt.
  for (const [id, job] of doneBefore) {
    const now = after.find((j) => j.requestId === id);
    expect(now).toMatchObject({ finishedAt: job.finishedAt, attempts: 1 });
  }
  // The jobs running at the crash ran again.
  expect(after.some((j) => j.attempts === 2)).toBe(true);
  // Each result is what a synchronous compile of the same configuration gives.
  for (const [n, id] of ids.entries()) {
    const job = (await call(second.url, token, 'GET', `/api/queue/results/${id}`)).json as View;
    const sync = (await call(second.url, token, 'POST', '/api/compile', { configuration: configuration(n) })).json;
    expect(stamped(job.result?.rules ?? [])).toEqual(stamped(sync.rules));
    expect(job.result?.ruleCount).toBe(sync.ruleCount);
  }
  const stats = (await call(second.url, token, 'GET', '/api/queue/stats')).json;
  expect(stats).toMatchObject({ pending: 0, completed: JOBS, failed: 0, cancelled: 0 });
  await second.stop();
}

describe('the job queue across a crash', () => {
  test('SQLite: 50 jobs, the server killed while some run, all complete exactly once', async () => {
    await crashAndRecover(join(dir, 'flc.db'));
  }, 180_000);

  test('PostgreSQL: the same, on the job table woken by LISTEN/NOTIFY', async (ctx) => {
    if (!POSTGRES_URL) ctx.skip(POSTGRES_SKIP_REASON);
    await crashAndRecover(await freshPostgresUrl());
  }, 180_000);
});
