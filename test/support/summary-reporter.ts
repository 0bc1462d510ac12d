import type { SerializedError } from 'vitest';
import { NEEDS_CORPUS } from './corpus-note.js';
import type { Reporter, TestCase, TestModule, TestRunEndReason, TestSuite } from 'vitest/node';

export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

/** Whether the test or a suite around it was deliberately skipped (`.skip`, `.todo`, `skipIf`). */
function chosenSkip(test: TestCase): boolean {
  for (let at: TestCase | TestSuite | TestModule = test; at.type !== 'module'; at = at.parent) {
    if (at.options.mode === 'skip' || at.options.mode === 'todo') return true;
  }
  return false;
}

/** Whether a hook of a suite around the test failed, so the test could not run as written. */
function brokenAround(test: TestCase): boolean {
  for (let at: TestSuite | TestModule = test.parent; ; at = at.parent) {
    if (at.errors().length > 0) return true;
    if (at.type === 'module') return false;
  }
}

/**
 * Counts a run honestly: a test that could not run because a hook or its file failed is failed, never
 * skipped; a failed file, suite hook or unhandled error with no failed test to show for it counts as one
 * failure of its own; only a test skipped on purpose (`.skip`, `.todo`, `ctx.skip()`) is skipped.
 */
export function tally(modules: ReadonlyArray<TestModule>, unhandledErrors = 0): Tally {
  const count: Tally = { passed: 0, failed: unhandledErrors, skipped: 0 };
  const failedTests = new Set<TestCase>();
  for (const module of modules) {
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') count.passed += 1;
      else if (state === 'skipped' && (chosenSkip(test) || !brokenAround(test))) count.skipped += 1;
      else {
        count.failed += 1;
        failedTests.add(test);
      }
    }
    // A file that failed to load, or a hook that failed after its tests passed, shows no failed test.
    for (const suite of [module, ...module.children.allSuites()]) {
      if (suite.errors().length === 0) continue;
      const tests = [...suite.children.allTests()];
      if (!tests.some((t) => failedTests.has(t))) count.failed += 1;
    }
  }
  return count;
}

/** Ends the run with the plain line CI reads: `Tests: N passed, N failed, N skipped`. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): void {
    const { passed, failed, skipped } = tally(modules, unhandledErrors.length);
    // The runner failing for a reason none of the above shows (a broken configuration, say) is a failure too.
    const shown = reason === 'failed' && failed === 0 ? 1 : failed;
    if (process.env.FLC_TEST_ALL !== '1') {
      process.stdout.write('\nThe long suites were left out (vitest.config.ts): npm run test:all runs every test.\n');
    }
    // Said when some were: not for a run of files that need no list, nor when their files failed (CI).
    const corpusSkipped = modules.some((m) =>
      [...m.children.allTests()].some((t) => t.result().state === 'skipped' && t.fullName.includes(NEEDS_CORPUS)),
    );
    if (corpusSkipped) process.stdout.write(`\nThe tests of the real lists were skipped: ${NEEDS_CORPUS}.\n`);
    process.stdout.write(`\nTests: ${passed} passed, ${shown} failed, ${skipped} skipped\n`);
  }
}
