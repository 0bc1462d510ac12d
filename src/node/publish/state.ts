// The small state file beside a published list: its rule counts in all and per source, which the
// shrink guard compares with when the list itself is not there (a CI job that caches only this).
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../atomic-write.js';
import type { ListCounts } from '../../core/publish/guard.js';

/** `list.txt` -> `list.txt.flc-state.json`. */
export const stateFileOf = (output: string) => `${output}.flc-state.json`;

interface StateFile {
  version: 1;
  ruleCount: number;
  sources: Record<string, number>;
  writtenAt: string;
}

/** The counts in `file`, or null when there is no such file; a file flc cannot read is an error. */
export async function readState(file: string): Promise<ListCounts | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  let state: StateFile;
  try {
    state = JSON.parse(text) as StateFile;
  } catch {
    throw new Error(`${file} is not flc's state file (not JSON); remove it to start afresh`);
  }
  if (state?.version !== 1 || typeof state.ruleCount !== 'number' || typeof state.sources !== 'object') {
    throw new Error(`${file} is not flc's state file (version 1); remove it to start afresh`);
  }
  return { ruleCount: state.ruleCount, sources: new Map(Object.entries(state.sources)) };
}

export async function writeState(file: string, counts: ListCounts, at: Date): Promise<void> {
  const state: StateFile = {
    version: 1,
    ruleCount: counts.ruleCount,
    sources: Object.fromEntries(counts.sources),
    writtenAt: at.toISOString(),
  };
  await writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
}
