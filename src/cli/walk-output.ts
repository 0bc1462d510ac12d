import { InputError } from '../core/errors/index.js';
import { readFile } from 'node:fs/promises';
import { startWalkWorker, type WalkHelper, type WalkJob } from './walk-start.js';
import { walkJsonPart, walkJsonText, type WalkJsonPart } from '../core/ast/walk-json.js';
import { textLines, type WalkOptions } from '../core/ast/walk-tree.js';

export { walkWorker } from './walk-start.js';

/** The text of FILE, or of standard input for `-` or no file. */
export async function readListInput(file: string | undefined): Promise<string> {
  if (file && file !== '-') {
    return readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') throw new InputError([`no such file: ${file}`]);
      if (e.code === 'EISDIR') throw new InputError([`${file} is a folder, not a list`]);
      throw e;
    });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The worker bin/run.js started for this walk, handed over in the oclif configuration's options. */
export function prestartedWalkWorker(config: { options?: unknown }): WalkHelper | null {
  return (config.options as { walkHelper?: WalkHelper } | undefined)?.walkHelper ?? null;
}

export interface WalkOutputOptions extends WalkOptions {
  /**
   * A second thread that walks parts of a long list: a started worker, or the path of
   * dist/cli/walk-worker.js to start one. Without it, or if it fails, one thread walks all.
   */
  worker?: string | WalkHelper | null;
  /** Lines per part (4,000). */
  partLines?: number;
  /** The shortest list worth a second thread (20,000 lines: below it, starting the thread costs more than it saves). */
  parallelFrom?: number;
}

/** A part as the worker thread hands it over: both texts already UTF-8. */
export type EncodedPart = WalkJsonPart<Uint8Array> & { k: number };

/** What the worker thread posts: that it has loaded its code, each part, and that it is done. */
export type WorkerMessage = { ready: true } | EncodedPart | { done: true };

/**
 * Walks a list text and writes `{nodes, summary}` as JSON to `out` — the same bytes as
 * `JSON.stringify(walkTree(…))`. The list is walked in parts of `partLines` lines, which this
 * thread and, for a long list, a worker thread claim in turn from a shared counter; the parts
 * are joined in line order. Writing honours backpressure; a reader that stops early (`| head`)
 * ends the output quietly.
 */
export async function writeWalk(
  text: string,
  options: WalkOutputOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const lines = textLines(text);
  const size = options.partLines ?? 4000;
  const count = Math.ceil(lines.length / size);
  const parts: (WalkJsonPart<string | Uint8Array> | undefined)[] = new Array(count);
  const next = new Int32Array(new SharedArrayBuffer(4));
  const walkOptions: WalkOptions = {
    nodeTypes: options.nodeTypes,
    maxDepth: options.maxDepth,
    includeContext: options.includeContext,
  };
  const parallel = count >= 2 && lines.length >= (options.parallelFrom ?? 20_000);
  const given = options.worker ?? null;
  // A started worker that a short list does not need is stopped; a path is started only when needed.
  if (typeof given !== 'string' && given && !parallel) void given.worker.terminate();
  const worker = !parallel ? null : typeof given === 'string' ? startWalkWorker(given) : given;
  const helper = worker
    ? runHelper(worker, { text, next: next.buffer, size, count, options: walkOptions }, parts)
    : null;
  const walk = (k: number) => walkJsonPart(lines, k * size, Math.min(lines.length, (k + 1) * size), walkOptions);
  for (let k = Atomics.add(next, 0, 1); k < count; k = Atomics.add(next, 0, 1)) parts[k] = walk(k);
  if (helper) await helper;
  // Parts the helper claimed but never handed over (it failed): walked here.
  for (let k = 0; k < count; k += 1) parts[k] ??= walk(k);
  await writeChunks(walkJsonText(parts as WalkJsonPart<string | Uint8Array>[], walkOptions), out);
}

/** Gives the worker its job; resolves when it has handed over its parts, failed or stopped. */
function runHelper(
  helper: WalkHelper,
  job: WalkJob,
  parts: (WalkJsonPart<string | Uint8Array> | undefined)[],
): Promise<void> {
  return new Promise((resolve) => {
    if (helper.exited) return resolve();
    const { worker } = helper;
    worker.ref();
    worker.on('message', (message: WorkerMessage) => {
      if ('done' in message) resolve();
      else if ('k' in message) parts[message.k] = message;
    });
    worker.on('error', () => resolve());
    worker.on('exit', () => resolve());
    worker.postMessage(job);
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
