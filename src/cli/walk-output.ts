import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { walkJsonPart, walkJsonText, type WalkJsonPart } from '../core/ast/walk-json.js';
import { textLines, type WalkInput } from '../core/ast/walk-tree.js';

/** The text of FILE, or of standard input for `-` or no file. */
export async function readListInput(file: string | undefined): Promise<string> {
  if (file && file !== '-') return readFile(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The walk's worker script in the package whose root is `root` (the commands know it from oclif). */
export const walkWorker = (root: string): string => join(root, 'dist/cli/walk-worker.js');

export interface WalkOutputOptions extends Pick<WalkInput, 'nodeTypes' | 'maxDepth' | 'includeContext'> {
  /** dist/cli/walk-worker.js: a second thread that walks parts of a long list. Without it, or if it fails, one thread walks all. */
  worker?: string;
  /** Lines per part (4,000). */
  partLines?: number;
  /** The shortest list worth a second thread (20,000 lines: the thread takes ~0.1 s to start). */
  parallelFrom?: number;
}

/** A part as the worker thread hands it over: both texts already UTF-8. */
export type EncodedPart = WalkJsonPart<Uint8Array> & { k: number };

/**
 * Walks a list text and writes `{nodes, summary}` as JSON to `out` — the same bytes as
 * `JSON.stringify(walkTree(…))`. The list is walked in parts of `partLines` lines, which this
 * thread and, for a long list, a worker thread claim in turn from a shared counter; the parts
 * are joined in line order. Writing honours backpressure; a reader that stops early (`| head`)
 * ends the output quietly.
 */
export async function writeWalk(text: string, options: WalkOutputOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const lines = textLines(text);
  const size = options.partLines ?? 4000;
  const count = Math.ceil(lines.length / size);
  const parts: (WalkJsonPart<string | Uint8Array> | undefined)[] = new Array(count);
  const next = new Int32Array(new SharedArrayBuffer(4));
  const walkOptions = { nodeTypes: options.nodeTypes, maxDepth: options.maxDepth, includeContext: options.includeContext };
  const helper =
    options.worker && count >= 2 && lines.length >= (options.parallelFrom ?? 20_000) && existsSync(options.worker)
      ? startHelper(options.worker, { text, next: next.buffer, size, count, options: walkOptions }, parts)
      : null;
  const walk = (k: number) => walkJsonPart(lines, k * size, Math.min(lines.length, (k + 1) * size), walkOptions);
  for (let k = Atomics.add(next, 0, 1); k < count; k = Atomics.add(next, 0, 1)) parts[k] = walk(k);
  if (helper) await helper;
  // Parts the helper claimed but never handed over (it failed): walked here.
  for (let k = 0; k < count; k += 1) parts[k] ??= walk(k);
  await writeChunks(walkJsonText(parts as WalkJsonPart<string | Uint8Array>[], walkOptions), out);
}

/** Starts the worker; resolves when it has handed over its parts, failed or stopped. */
function startHelper(script: string, workerData: object, parts: (WalkJsonPart<string | Uint8Array> | undefined)[]): Promise<void> {
  return new Promise((resolve) => {
    const worker = new Worker(script, { workerData });
    worker.on('message', (message: EncodedPart | { done: true }) => {
      if ('done' in message) resolve();
      else parts[message.k] = message;
    });
    worker.on('error', () => resolve());
    worker.on('exit', () => resolve());
  });
}

async function writeChunks(chunks: Iterable<string | Uint8Array>, out: NodeJS.WritableStream): Promise<void> {
  let failure: Error | null = null;
  const onError = (err: Error) => {
    failure = err;
  };
  out.on('error', onError);
  try {
    const write = async (chunk: string | Uint8Array) => {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', resolve));
    };
    for (const chunk of chunks) {
      if (failure) break;
      await write(chunk);
    }
    if (!failure) await write('\n');
  } finally {
    out.off('error', onError);
  }
  if (failure && (failure as NodeJS.ErrnoException).code !== 'EPIPE') throw failure;
}
