// The second thread of a long walk (walk-output.ts): loads the bundle's code (cached like the
// commands'), waits for its job, claims parts from the shared counter, walks them and hands each
// over as UTF-8, moved rather than copied.
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';
import { loadBundle } from './bundle-loader.cjs';
import type { WalkJob } from './walk-start.js';
import type { walkJsonPart as WalkJsonPart } from '../core/ast/walk-json.js';
import type { textLines as TextLines } from '../core/ast/walk-tree.js';

// The code first, then the job: a worker started early (bin/run.js) is ready when the list is.
const bundle = loadBundle(fileURLToPath(new URL('../flc-fast.cjs', import.meta.url)), {
  key: 'walk-worker',
  saveAtExit: false,
});
const load = bundle.exports.walkModules as () => Promise<{
  walkJsonPart: typeof WalkJsonPart;
  textLines: typeof TextLines;
}>;
const { walkJsonPart, textLines } = await load();
// Says it is ready, so that whoever started it early can tell (the tests wait for it).
parentPort!.postMessage({ ready: true });
const { text, next, size, count, options } = await new Promise<WalkJob>((resolve) =>
  parentPort!.once('message', resolve),
);
const lines = textLines(text);
const counter = new Int32Array(next);
const encoder = new TextEncoder();
for (let k = Atomics.add(counter, 0, 1); k < count; k = Atomics.add(counter, 0, 1)) {
  const part = walkJsonPart(lines, k * size, Math.min(lines.length, (k + 1) * size), options);
  const rules = encoder.encode(part.rules);
  const records = encoder.encode(part.records);
  parentPort!.postMessage({ k, rules, records, summary: part.summary }, [rules.buffer, records.buffer]);
}
parentPort!.postMessage({ done: true });
bundle.save();
