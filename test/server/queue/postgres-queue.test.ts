import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { ServerResponse } from 'node:http';
import pg from 'pg';
import { openStore } from '../../../src/server/store/open.js';
import type { Store } from '../../../src/server/store/store.js';
import type { Job } from '../../../src/server/store/jobs.js';
import { startSession } from '../../../src/server/auth/sessions.js';
import { JobRunner, QUEUE_DEFAULTS } from '../../../src/server/queue/runner.js';
import { freshPostgresUrl, POSTGRES_SKIP_REASON, POSTGRES_URL } from '../../support/postgres.js';
import { type ServeProcess, startServe } from '../../support/serve-process.js';
import { startServer, type TestServer } from '../../support/http-server.js';
import { until } from '../../support/queue.js';

/**
 * On PostgreSQL the job table is the only queue: `NOTIFY` in the transaction that makes a job
 * claimable wakes every server on the database, and the table's lease decides who runs it and
 * when a dead process's job runs again.
 */
const stores: Store[] = [];
const runners: JobRunner[] = [];
const processes: ServeProcess[] = [];
let lists: TestServer;
/** Downloads of `/hold/*` in flight, answered when the test says so (and at once after). */
const held: ServerResponse[] = [];
let holding = true;
const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/plain' }).end('||held.example^\n');

beforeAll(async () => {
  lists = await startServer((req, res) => {
    if (req.url?.startsWith('/hold/')) {
      if (holding) held.push(res);
      else answer(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('||a.example^\n');
  });
});
afterAll(async () => {
  await Promise.all(runners.map((r) => r.stop()));
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(stores.map((s) => s.close()));
  for (const res of held) res.destroy();
  await lists.close();
});
beforeEach((ctx) => {
  if (!POSTGRES_URL) ctx.skip(POSTGRES_SKIP_REASON);
});

const open = async (url: string) => {
  const store = await openStore(url);
  stores.push(store);
  return store;
};
const job = (id: string) => ({
  id,
  ownerId: 'u1',
  kind: 'compile' as const,
  payload: {},
  createdAt: new Date().toISOString(),
});

/** A runner that only looks at the table when woken: its poll is ten minutes away. */
function sleepyRunner(store: Store, execute: (job: Job, signal: AbortSignal) => Promise<unknown>) {
  const runner = new JobRunner(store.jobs, execute, { ...QUEUE_DEFAULTS, workers: 1, pollMs: 600_000 }, Date.now);
  runners.push(runner);
  return runner;
}

describe('one queue on PostgreSQL: the job table, woken by LISTEN/NOTIFY', () => {
  test('a job written by one store is run at once by a runner on another store of the database', async () => {
    const url = await freshPostgresUrl();
    const [a, b] = [await open(url), await open(url)];
    const ran: string[] = [];
    const runner = sleepyRunner(b, async (j) => ran.push(j.id));
    runner.start();
    // Let its first look (an empty table) and its LISTEN happen before the job is written.
    await new Promise((r) => setTimeout(r, 300));
    await a.jobs.enqueue(job('from-a'));
    expect(
      await until(
        async () => ran,
        (r) => r.length === 1,
        10_000,
      ),
    ).toEqual(['from-a']);
    expect(await a.jobs.job('from-a')).toMatchObject({ state: 'completed', attempts: 1 });
    // A store in another schema of the same database is not woken by this one's jobs.
    const other = await open(await freshPostgresUrl());
    const elsewhere: string[] = [];
    sleepyRunner(other, async (j) => elsewhere.push(j.id)).start();
    await a.jobs.enqueue(job('second'));
    await until(
      async () => ran,
      (r) => r.length === 2,
      10_000,
    );
    expect(ran).toEqual(['from-a', 'second']);
    expect(elsewhere).toEqual([]);
  });

  test('a wake-up connection that is cut is opened again, and the jobs of the meantime run', async () => {
    const url = await freshPostgresUrl();
    const [a, b] = [await open(url), await open(url)];
    const ran: string[] = [];
    const logged: string[] = [];
    const runner = new JobRunner(
      b.jobs,
      async (j) => ran.push(j.id),
      { ...QUEUE_DEFAULTS, workers: 1, pollMs: 600_000 },
      Date.now,
      (m) => logged.push(m),
    );
    runners.push(runner);
    runner.start();
    await new Promise((r) => setTimeout(r, 300));
    // The listening session ended from the database's side, as a restart or a proxy would.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `select pg_terminate_backend(pid) as ended from pg_stat_activity
          where datname = current_database() and query like 'listen "flc_jobs_%' and pid <> pg_backend_pid()
            and query like '%' || left(md5(current_schema()), 16) || '%'`,
      );
      expect(rows).toEqual([{ ended: true }]);
    } finally {
      await admin.end();
    }
    // Written while no one listens: taken when the connection is back.
    await a.jobs.enqueue(job('meantime'));
    expect(
      await until(
        async () => ran,
        (r) => r.length === 1,
        10_000,
      ),
    ).toEqual(['meantime']);
    expect(logged.join('\n')).toMatch(/the job wake-up connection failed/);
    await a.jobs.enqueue(job('after'));
    expect(
      await until(
        async () => ran,
        (r) => r.length === 2,
        10_000,
      ),
    ).toEqual(['meantime', 'after']);
  });

  test('a job put back by a stopping runner is taken at once by a runner on another store', async () => {
    const url = await freshPostgresUrl();
    const [a, b] = [await open(url), await open(url)];
    const first = sleepyRunner(
      a,
      (_j, signal) => new Promise((_r, fail) => signal.addEventListener('abort', () => fail(signal.reason))),
    );
    const ranOnB: string[] = [];
    const second = sleepyRunner(b, async (j) => ranOnB.push(j.id));
    first.start();
    await first.enqueue(job('moved'));
    await until(
      async () => first.active,
      (n) => n === 1,
      10_000,
    );
    // B is listening, its table poll far away; A runs the job, B is busy with nothing.
    second.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(ranOnB).toEqual([]);
    await first.stop();
    expect(
      await until(
        async () => ranOnB,
        (r) => r.length === 1,
        10_000,
      ),
    ).toEqual(['moved']);
    expect(await b.jobs.job('moved')).toMatchObject({ state: 'completed', attempts: 2 });
  });

  test('two flc serve processes: a job of the one killed runs again on the other; a restart drops none', async () => {
    const url = await freshPostgresUrl();
    const setup = await open(url);
    const user = await setup.createUser({
      email: 'queue@example.org',
      role: 'user',
      tier: 'admin',
      password: { hash: 'h', salt: 's', iterations: 1 },
    });
    const token = (await startSession(setup, user, Date.now())).token;
    const call = async (base: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.json();
    };
    const args = ['--db', url, '--allow-private-sources', '--queue-workers', '2', '--queue-lease', '2'];
    const a = await startServe(args);
    processes.push(a);
    const ids: string[] = [];
    for (const n of [1, 2]) {
      const r = await call(a.url, 'POST', '/api/compile/async', {
        configuration: { name: `held ${n}`, sources: [{ source: `${lists.url}/hold/${n}` }] },
      });
      ids.push(r.requestId);
    }
    const jobs = async (base: string) =>
      (await call(base, 'GET', '/api/queue/history?limit=10')).jobs as { status: string; attempts: number }[];
    await until(
      () => jobs(a.url),
      (js) => js.every((j) => j.status === 'running'),
    );
    const b = await startServe(args);
    processes.push(b);
    a.child.kill('SIGKILL');
    await new Promise((r) => a.child.once('exit', r));
    // B takes both once A's lease (2 s) lapsed, and they run again from the start.
    const retaken = await until(
      () => jobs(b.url),
      (js) => js.every((j) => j.status === 'running' && j.attempts === 2),
    );
    expect(retaken.map((j) => [j.status, j.attempts])).toEqual([
      ['running', 2],
      ['running', 2],
    ]);
    // B stops (SIGTERM) while it runs them, C is up: C takes them back at once and finishes them.
    const c = await startServe(args);
    processes.push(c);
    // Its health: the store on PostgreSQL answers, its pool is up.
    const health = await fetch(`${c.url}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      checks: { store: { status: 'ok', engine: 'postgres' }, workers: { status: expect.stringMatching(/ok|busy/) } },
    });
    await b.stop();
    const after = await until(
      () => jobs(c.url),
      (js) => js.every((j) => j.attempts === 3),
    );
    expect(after.map((j) => j.attempts)).toEqual([3, 3]);
    holding = false;
    for (const res of held.splice(0)) answer(res);
    const done = await until(
      () => jobs(c.url),
      (js) => js.every((j) => j.status === 'completed'),
    );
    expect(done.map((j) => [j.status, j.attempts])).toEqual([
      ['completed', 3],
      ['completed', 3],
    ]);
    for (const id of ids)
      expect((await call(c.url, 'GET', `/api/queue/results/${id}`)).result.rules).toContain('||held.example^');
    // No other queue: nothing of pg-boss's was made beside the store.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(`select nspname from pg_namespace where nspname like '%pgboss%'`);
      expect(rows).toEqual([]);
    } finally {
      await client.end();
    }
    await c.stop();
  }, 120_000);
});
