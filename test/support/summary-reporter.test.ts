import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/reporter');

/** Runs vitest on one fixture file with the summary reporter; returns its exit status and closing line. */
function run(fixture: string): { status: number | null; line: string } {
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', join(FIXTURES, 'vitest.config.ts')],
    { cwd: FIXTURES, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FLC_REPORTER_FIXTURE: fixture } },
  );
  const line = result.stdout.split('\n').find((l) => l.startsWith('Tests: ')) ?? `(no closing line)\n${result.stderr}`;
  return { status: result.status, line };
}

describe('the closing line of a test run', () => {
  test.each([
    ['failing-hook.fixture.ts', 1, 'Tests: 0 passed, 2 failed, 0 skipped'],
    ['failing-after.fixture.ts', 1, 'Tests: 1 passed, 1 failed, 0 skipped'],
    ['broken-file.fixture.ts', 1, 'Tests: 0 passed, 1 failed, 0 skipped'],
    ['mixed.fixture.ts', 1, 'Tests: 1 passed, 1 failed, 4 skipped'],
    ['passing.fixture.ts', 0, 'Tests: 1 passed, 0 failed, 1 skipped'],
  ])('%s: exit %i, "%s"', (fixture, status, line) => {
    expect(run(fixture)).toEqual({ status, line });
  });
});
