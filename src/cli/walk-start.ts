// Starting the walk's worker thread, apart from walk-output.ts so that bin/run.js can start it
// before anything else loads (this module imports no AGTree).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WalkOptions } from '../core/ast/walk-tree.js';

/** The walk's worker script in the package whose root is `root` (the commands know it from oclif). */
export const walkWorker = (root: string): string => join(root, 'dist/cli/walk-worker.js');

/** What the worker is posted: the list, the shared part counter, the part size and count, the filters. */
export interface WalkJob {
  text: string;
  next: SharedArrayBuffer;
  size: number;
  count: number;
  options: WalkOptions;
}

/** A walk worker started before it is known to be needed, so that it is ready when the list is (see bin/run.js). */
export interface WalkHelper {
  worker: Worker;
  exited: boolean;
}

/**
 * Starts the walk worker `script` (see walkWorker): it loads its code, then waits for a job. Null if it is not built.
 */
export function startWalkWorker(script: string): WalkHelper | null {
  if (!existsSync(script)) return null;
  const helper: WalkHelper = { worker: new Worker(script), exited: false };
  // Until a job is posted, a failure only means the walk runs on one thread.
  helper.worker.on('error', () => undefined);
  helper.worker.on('exit', () => {
    helper.exited = true;
  });
  helper.worker.unref();
  return helper;
}
