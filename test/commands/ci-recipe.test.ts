// The CI recipe of docs/ci-recipe.md, run: the shell steps of examples/ci/github-actions.yml with
// its job's environment, which run examples/ci/publish.sh, against a local list server, four times
// as a scheduled job would over days: a first build, a change, a source that answers an empty
// page, and a source that is down.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { DiffUpdater } from '@adguard/diff-builder/diff-updater/es';
import { startServer, type TestServer } from '../support/http-server.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
let dir: string;
let server: TestServer;
const bodies: Record<string, string | number> = {};

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flc-ci-'));
  server = await startServer((req, res) => {
    const body = bodies[req.url ?? ''];
    if (typeof body === 'number') res.writeHead(body).end();
    else res.writeHead(200).end(body ?? '');
  });
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Step {
  run?: string;
  uses?: string;
}

/** Runs the build job's shell steps (not the ones that install flc or use actions) in `dir`. */
async function runJob(summary: string): Promise<{ code: number; stderr: string }> {
  const workflow = parse(readFileSync(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8'));
  const job = workflow.jobs.build as { env: Record<string, string>; steps: Step[] };
  const steps = job.steps.filter((s) => s.run !== undefined && !s.run.startsWith('npm install'));
  expect(steps.map((s) => s.run)).toEqual(['FLC=flc sh ci/publish.sh']);
  const env = {
    ...process.env,
    ...job.env,
    PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
    GITHUB_STEP_SUMMARY: summary,
    // Builds a second apart, not an hour, and clients that ask for the next patch a second later.
    DIFF_RESOLUTION: 's',
    DIFF_EXPIRY: '1',
  };
  let stderr = '';
  for (const step of steps) {
    try {
      const out = await run('bash', ['-eo', 'pipefail', '-c', step.run!], { cwd: join(dir, 'repo'), env });
      stderr += out.stderr;
    } catch (e) {
      const failed = e as { code: number; stderr: string };
      return { code: failed.code, stderr: stderr + failed.stderr };
    }
  }
  return { code: 0, stderr };
}

test('the recipe caches, guards, patches and summarises across four scheduled runs', async () => {
  // The repository of a list: its configuration and the script; `flc` on the PATH is this build.
  mkdirSync(join(dir, 'repo/ci'), { recursive: true });
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin/flc'), `#!/bin/sh\nexec node ${JSON.stringify(join(ROOT, 'bin/run.js'))} "$@"\n`);
  chmodSync(join(dir, 'bin/flc'), 0o755);
  copyFileSync(join(ROOT, 'examples/ci/publish.sh'), join(dir, 'repo/ci/publish.sh'));
  const a = `${server.url}/a.txt`;
  const b = `${server.url}/b.txt`;
  const config = { name: 'CI list', sources: [{ source: a }, { source: b }], transformations: ['Deduplicate'] };
  writeFileSync(join(dir, 'repo/flc.config.json'), JSON.stringify(config));
  const list = join(dir, 'repo/public/list.txt');
  const summary = join(dir, 'summary.md');
  bodies['/a.txt'] = Array.from({ length: 10 }, (_, i) => `||a${i}.example^`).join('\n');
  bodies['/b.txt'] = '||b0.example^\n||b1.example^\n';

  const first = await runJob(summary);
  expect(first.code, first.stderr).toBe(0);
  const v1 = readFileSync(list, 'utf8');
  expect(v1.startsWith('! Diff-Path: patches/list-s-')).toBe(true);
  expect(readdirSync(join(dir, 'repo/.flc-cache')).length).toBeGreaterThan(0);
  expect(readFileSync(summary, 'utf8')).toContain('| **Total** | 12 |');

  await new Promise((r) => setTimeout(r, 1_600));
  bodies['/b.txt'] = '||b0.example^\n||b1.example^\n||b2.example^\n';
  const second = await runJob(summary);
  expect(second.code, second.stderr).toBe(0);
  const v2 = readFileSync(list, 'utf8');
  expect(readFileSync(summary, 'utf8')).toContain(`| ${b} | 3 | 1 | 0 |`);
  // A client that holds the first list gets the second through the patches alone.
  const host = await startServer((req, res) => {
    res.writeHead(200).end(readFileSync(join(dir, 'repo/public', new URL(req.url!, 'http://x').pathname)));
  });
  try {
    expect(await DiffUpdater.applyPatch({ filterUrl: `${host.url}/list.txt`, filterContent: v1 })).toBe(v2);
  } finally {
    await host.close();
  }

  bodies['/a.txt'] = '';
  const empty = await runJob(summary);
  expect(empty.code).toBe(1);
  expect(empty.stderr).toContain(`${a}: 10 -> 0 rules (-10, -100.0%)`);
  expect(readFileSync(list, 'utf8')).toBe(v2);

  bodies['/a.txt'] = 503;
  const down = await runJob(summary);
  expect(down.code, down.stderr).toBe(0);
  expect(down.stderr).toMatch(new RegExp(`warning: Source ${a} failed: HTTP 503.*cached copy`));
  expect(down.stderr).toContain('only the header would change');
  expect(readFileSync(list, 'utf8')).toBe(v2);
  expect(readFileSync(summary, 'utf8')).toContain(`- stale: ${a} (cached copy`);
});
