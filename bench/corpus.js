// The real lists the benches read: the folder FLC_CORPUS names, as the tests read it (README).
import { resolve } from 'node:path';

/** The corpus folder, absolute; a clear error when FLC_CORPUS is unset. */
export function corpusDir() {
  const dir = process.env.FLC_CORPUS;
  if (!dir) throw new Error('FLC_CORPUS must name the folder of real lists the benches read (README, "Tests")');
  return resolve(dir);
}
