import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'vitest';
import { NEEDS_CORPUS } from './corpus-note.js';
import { UNDER_CI } from './ci.js';

// The real filter lists (tens of MB) are not in the repository: the tests that need them read the
// folder named by FLC_CORPUS (relative to the working directory, the repository's root under
// vitest). Unset, those tests are skipped with the reason in their names; under CI (ci.ts) an unset
// FLC_CORPUS fails the run instead, so CI cannot pass without them (.ci/run sets it).
const configured = process.env.FLC_CORPUS;

export { NEEDS_CORPUS };

if (!configured && UNDER_CI) {
  throw new Error(`FLC_CORPUS is not set, and CI must run every test: ${NEEDS_CORPUS}`);
}

/** The corpus folder, absolute; null when FLC_CORPUS is unset. */
export const CORPUS: string | null = configured ? resolve(configured) : null;

/** The path of a corpus list; only inside a suite or test that runs when the corpus is there. */
export function corpusPath(file: string): string {
  if (CORPUS === null) throw new Error(NEEDS_CORPUS);
  return join(CORPUS, file);
}

/** The text of a corpus list. */
export function readCorpus(file: string): string {
  return readFileSync(corpusPath(file), 'utf8');
}

/** The corpus' lists (`*.txt`); none when FLC_CORPUS is unset. */
export function corpusLists(): string[] {
  return CORPUS === null ? [] : readdirSync(CORPUS).filter((f) => f.endsWith('.txt'));
}

/** A `describe` that runs only with the corpus, else is skipped with the reason in its name. */
export const describeCorpus = (name: string, body: () => void): void => {
  if (CORPUS === null) describe.skip(`${name} [${NEEDS_CORPUS}]`, body);
  else describe(name, body);
};

/** A `test` that runs only with the corpus, else is skipped with the reason in its name. */
export const testCorpus = (name: string, body: () => unknown, timeout?: number): void => {
  if (CORPUS === null) test.skip(`${name} [${NEEDS_CORPUS}]`, body);
  else test(name, body, timeout);
};
