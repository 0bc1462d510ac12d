import { createHash } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { hashPassword } from '../../src/server/auth/password.js';
import { mountConsole } from '../../src/console/index.js';
import { addEvent, RUN_LIMITS, Runs } from '../../src/console/compile/runs.js';
import { CompilePool } from '../../src/node/compile-pool.js';
import { compile } from '../../src/core/pipeline/compile.js';
import type { RemovedLine } from '../../src/core/pipeline/report.js';
import { validateConfiguration } from '../../src/core/config/parse.js';
import { memoryReader } from '../support/memory-reader.js';

// A console compile is kept in the process's memory for its owner. Each user's 3 runs are not a
// bound on the process: every account (and sign-up makes accounts) brings 3 more. These tests hold
// the process-wide bounds: how many run at once, and how much the ended ones keep.

describe('console compile runs: process-wide bounds', () => {
  test('past RUN_LIMITS.running compiles going at once, another user is refused (429), nothing started', async () => {
    const store = await openStore(':memory:');
    await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 0 }, new Date().toISOString());
    let reads = 0;
    const app = createApp({
      store,
      version: '1',
      now: () => Date.now(),
      startedAt: Date.now(),
      // A source that never answers until the compile is cancelled: every run stays running.
      makeReader: () => ({
        resolve: (ref: string) => ref,
        read: (_location: string, signal?: AbortSignal) => {
          reads += 1;
          return new Promise<string>((_resolve, reject) =>
            signal?.addEventListener('abort', () => reject(new Error('cancelled'))),
          );
        },
        close: () => Promise.resolve(),
      }),
      console: mountConsole,
    });
    const config = JSON.stringify({ name: 'slow', sources: [{ source: 'https://lists.example.org/slow.txt' }] });
    const password = await hashPassword('correct horse battery 9');
    const browsers: { cookie: string; csrf: string }[] = [];
    for (let i = 0; i <= RUN_LIMITS.running; i++) {
      const user = await store.createUser({
        email: `runner${i}@example.com`,
        name: null,
        role: 'user',
        tier: 'free',
        password,
      });
      const { token } = await startSession(store, user, Date.now());
      const csrf = createHash('sha256').update(`flc-console-csrf|${token}`).digest('base64url');
      browsers.push({ cookie: `flc_session=${token}`, csrf });
    }
    const compile = (b: { cookie: string; csrf: string }) =>
      app.request('/console/compile', {
        method: 'POST',
        headers: {
          origin: 'http://localhost',
          cookie: b.cookie,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ _csrf: b.csrf, config }).toString(),
      });
    const started: { b: (typeof browsers)[number]; location: string }[] = [];
    for (const b of browsers.slice(0, RUN_LIMITS.running)) {
      const res = await compile(b);
      expect(res.status).toBe(303);
      started.push({ b, location: res.headers.get('location') ?? '' });
    }
    const last = await compile(browsers[RUN_LIMITS.running]);
    expect(last.status).toBe(429);
    expect(await last.text()).toContain('as many console compiles as it takes');
    // Once one ends (cancelled), a run may start again.
    const first = started[0];
    const cancelled = await app.request(`${first.location}/cancel`, {
      method: 'POST',
      headers: {
        origin: 'http://localhost',
        cookie: first.b.cookie,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: first.b.csrf }).toString(),
    });
    expect(cancelled.status).toBe(303);
    await expect.poll(async () => (await compile(browsers[RUN_LIMITS.running])).status).toBe(303);
    expect(reads).toBeGreaterThanOrEqual(RUN_LIMITS.running + 1);
    for (const { b, location } of started.slice(1))
      await app.request(`${location}/cancel`, {
        method: 'POST',
        headers: { origin: 'http://localhost', cookie: b.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: b.csrf }).toString(),
      });
  });

  test('ended runs of many users keep at most keptBytes and kept runs: the first ended go first, not the last', () => {
    let now = 0;
    const limits = { ...RUN_LIMITS, keptBytes: 100_000, kept: 8 };
    const runs = new Runs(() => now, limits);
    const big = Array.from({ length: 1000 }, (_, i) => `||ads${i}.example.org^`.padEnd(40, 'x'));
    const ended: { id: string; owner: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const owner = `user-${i}`;
      const run = runs.start(owner, `list ${i}`, 'adblock', {});
      if (typeof run === 'string') throw new Error(run);
      run.result = { rules: big, ruleCount: big.length, compiledAt: '', totalDurationMs: 1 };
      now += 1;
      runs.end(run, 'completed');
      ended.push({ id: run.id, owner });
      expect(runs.held().keptBytes).toBeLessThanOrEqual(limits.keptBytes);
      expect(runs.held().runs).toBeLessThanOrEqual(limits.kept);
    }
    // The newest are kept, the oldest dropped.
    const last = ended.at(-1)!;
    expect(runs.get(last.id, last.owner)).toBeDefined();
    expect(runs.get(ended[0].id, ended[0].owner)).toBeUndefined();

    // A run larger than the whole budget is still kept for its owner until the next one ends.
    const huge = runs.start('user-huge', 'huge', 'adblock', {});
    if (typeof huge === 'string') throw new Error(huge);
    huge.result = {
      rules: Array.from({ length: 10 }, () => big).flat(),
      ruleCount: 10_000,
      compiledAt: '',
      totalDurationMs: 1,
    };
    now += 1;
    runs.end(huge, 'completed');
    expect(runs.get(huge.id, 'user-huge')).toBeDefined();
    expect(runs.held().runs).toBe(1);
    const next = runs.start('user-next', 'next', 'adblock', {});
    if (typeof next === 'string') throw new Error(next);
    now += 1;
    runs.end(next, 'completed');
    expect(runs.get(huge.id, 'user-huge')).toBeUndefined();
    expect(runs.get(next.id, 'user-next')).toBeDefined();
  });
});

describe('the removal report of a pooled compile', () => {
  const pool = new CompilePool({ size: 1 });
  afterAll(() => pool.destroy());

  test('past its reportLimit the worker counts removed lines and sends none of them to the main thread', async () => {
    // Every copy of the same rule past the first is removed: over 5,000 removed lines for 2 kept.
    const list = Array.from({ length: 5_002 }, (_, i) => `||dup${i % 2}.example.com^`).join('\n');
    const { config } = validateConfiguration({
      name: 'dups',
      sources: [{ source: '/a.txt' }],
      transformations: ['Deduplicate'],
    });
    const removed: RemovedLine[] = [];
    let dropped = 0;
    const out = await pool.compile(config, {
      reader: memoryReader({ '/a.txt': list }),
      compiler: 'flc test',
      now: () => new Date(0),
      onRemoved: (line) => removed.push(line),
      reportLimit: 1_200,
      onRemovedDropped: (count) => {
        dropped += count;
      },
    });
    expect(out.ruleCount).toBe(2);
    expect(removed).toHaveLength(1_200);
    const whole = await compile(config, {
      reader: memoryReader({ '/a.txt': list }),
      compiler: 'flc test',
      now: () => new Date(0),
      report: true,
    });
    expect(whole.report?.removed.length).toBeGreaterThanOrEqual(5_000);
    expect(dropped).toBe((whole.report?.removed.length ?? 0) - 1_200);
  });

  test('a running run keeps its events up to RUN_LIMITS.eventBytes: past it, counted, not kept', () => {
    const run = new Runs(() => 0).start('u', 'n', 'adblock', {});
    if (typeof run === 'string') throw new Error(run);
    const source = `https://lists.example/${'p'.repeat(60_000)}`;
    for (let i = 0; i < 100; i += 1)
      addEvent(run, { event: 'source:start', data: { type: 'source:start', index: i, source } });
    // 100 events of 60 KB (6 MB) were sent: 1 MiB of them is kept, the rest only counted.
    expect(run.events.length).toBe(Math.floor(RUN_LIMITS.eventBytes / 60_100));
    expect(run.events.length + run.eventsDropped).toBe(100);
    expect(run.heldBytes.events).toBeLessThanOrEqual(RUN_LIMITS.eventBytes);
  });
});
