import { afterAll, beforeAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import {
  walkWorker,
  writeWalk,
  type EncodedPart,
  type WalkOutputOptions,
  type WorkerMessage,
} from '../../src/cli/walk-output.js';
import { CORPUS, describeCorpus, readCorpus } from '../support/corpus.js';
import { startWalkWorker, type WalkHelper } from '../../src/cli/walk-start.js';
import { walkJsonPart } from '../../src/core/ast/walk-json.js';
import { textLines, walkTree } from '../../src/core/ast/walk-tree.js';

// The worker runs the built bundle (dist/flc-fast.cjs), as the installed command does.
const ROOT = resolve(import.meta.dirname, '../..');
const WORKER = walkWorker(ROOT);
// EasyList: a long list with every rule shape, which the walk splits into parts.
const EASYLIST = CORPUS === null ? '' : readCorpus('easylist.txt');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-walk-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A worker started as bin/run.js starts it, once it says it has loaded its code. Then it takes
 * its first part as soon as it is posted the job, while this thread is still on its own first
 * of 80: waiting for it keeps a loaded machine (CI) from letting this thread walk them all first.
 */
async function readyWorker(): Promise<WalkHelper> {
  const helper = startWalkWorker(WORKER)!;
  const [message] = (await once(helper.worker, 'message')) as [WorkerMessage];
  expect(message).toEqual({ ready: true });
  return helper;
}

/** Runs writeWalk into memory: the text, and how many bytes came as the worker's UTF-8. */
async function walkToMemory(text: string, options: WalkOutputOptions): Promise<{ text: string; fromWorker: number }> {
  const chunks: Buffer[] = [];
  let fromWorker = 0;
  const out = new Writable({
    decodeStrings: false,
    write(chunk: string | Uint8Array, _encoding, done) {
      if (typeof chunk !== 'string') fromWorker += chunk.length;
      chunks.push(Buffer.from(chunk as Uint8Array));
      done();
    },
  });
  await writeWalk(text, options, out);
  return { text: Buffer.concat(chunks).toString('utf8'), fromWorker };
}

describeCorpus('writeWalk', () => {
  test('the worker thread walks the parts it claims exactly as this thread would', async () => {
    const lines = textLines(EASYLIST);
    const size = 5000;
    const count = Math.ceil(lines.length / size);
    const options = { maxDepth: 3, includeContext: true };
    const next = new Int32Array(new SharedArrayBuffer(4));
    next[0] = 2; // parts 0 and 1 are "taken": the worker starts at 2.
    const parts = await new Promise<EncodedPart[]>((resolvePromise, reject) => {
      const got: EncodedPart[] = [];
      const worker = new Worker(WORKER);
      worker.on('message', (m: WorkerMessage) => {
        if ('done' in m) resolvePromise(got);
        else if ('k' in m) got.push(m);
      });
      worker.on('error', reject);
      worker.postMessage({ text: EASYLIST, next: next.buffer, size, count, options });
    });
    expect(parts.map((p) => p.k)).toEqual(Array.from({ length: count - 2 }, (_, i) => i + 2));
    const decoder = new TextDecoder();
    for (const part of parts) {
      const here = walkJsonPart(lines, part.k * size, Math.min(lines.length, (part.k + 1) * size), options);
      expect(decoder.decode(part.rules)).toBe(here.rules);
      expect(decoder.decode(part.records)).toBe(here.records);
      expect(part.summary).toEqual(here.summary);
    }
  }, 60_000);

  test('two threads write exactly the one-thread walk of a long list', async () => {
    const expected = `${JSON.stringify(walkTree({ text: EASYLIST, includeContext: true }))}\n`;
    const both = await walkToMemory(EASYLIST, { includeContext: true, worker: await readyWorker(), partLines: 1000 });
    const one = await walkToMemory(EASYLIST, { includeContext: true });
    expect(one.fromWorker).toBe(0);
    expect(both.fromWorker).toBeGreaterThan(0);
    expect(both.text === expected).toBe(true);
    expect(one.text === expected).toBe(true);
  }, 120_000);

  test('a worker that fails, or dies holding parts, costs only time', async () => {
    const failing = join(dir, 'failing.js');
    writeFileSync(failing, "throw new Error('no worker today');\n");
    // Claims three parts, then exits without handing any over.
    const dying = join(dir, 'dying.js');
    writeFileSync(
      dying,
      [
        "import { parentPort } from 'node:worker_threads';",
        "parentPort.once('message', (job) => {",
        '  const c = new Int32Array(job.next);',
        '  for (let i = 0; i < 3; i += 1) Atomics.add(c, 0, 1);',
        '  process.exit(0);',
        '});',
        '',
      ].join('\n'),
    );
    const text = EASYLIST.split('\n').slice(0, 3000).join('\n');
    const expected = `${JSON.stringify(walkTree({ text, maxDepth: 2 }))}\n`;
    for (const worker of [failing, dying, join(dir, 'missing.js')]) {
      const result = await walkToMemory(text, { maxDepth: 2, worker, partLines: 100, parallelFrom: 0 });
      expect(result.text === expected, worker).toBe(true);
    }
  }, 60_000);

  test('a worker started before the list is known (as bin/run.js does) takes parts or is stopped', async () => {
    const long = await readyWorker();
    const both = await walkToMemory(EASYLIST, { maxDepth: 2, worker: long, partLines: 1000 });
    expect(both.fromWorker).toBeGreaterThan(0);
    expect(both.text === `${JSON.stringify(walkTree({ text: EASYLIST, maxDepth: 2 }))}\n`).toBe(true);
    const text = EASYLIST.split('\n').slice(0, 500).join('\n');
    const unused = startWalkWorker(WORKER)!;
    const exited = new Promise((resolveExit) => unused.worker.once('exit', resolveExit));
    const one = await walkToMemory(text, { worker: unused });
    expect(one.fromWorker).toBe(0);
    await exited;
    expect(unused.exited).toBe(true);
    expect(startWalkWorker(join(dir, 'missing.js'))).toBeNull();
  }, 120_000);

  test('a short list is walked on this thread alone', async () => {
    const text = EASYLIST.split('\n').slice(0, 500).join('\n');
    const result = await walkToMemory(text, { worker: WORKER, partLines: 50 });
    expect(result.fromWorker).toBe(0);
    expect(result.text).toBe(`${JSON.stringify(walkTree({ text }))}\n`);
  });
});
