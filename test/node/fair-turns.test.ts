import { expect, test } from 'vitest';
import { FairTurns } from '../../src/node/compile-pool.js';

/** A task that runs until `finish()` is called, noting when it started. */
function tasks(started: string[]) {
  const finishers = new Map<string, () => void>();
  const task = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      finishers.set(name, () => resolve(name));
    });
  const finish = async (name: string) => {
    finishers.get(name)?.();
    await new Promise((r) => setImmediate(r));
  };
  return { task, finish };
}

test("the pool's waiting tasks take turns round-robin across callers, in order within one caller", async () => {
  const turns = new FairTurns(1);
  const started: string[] = [];
  const { task, finish } = tasks(started);
  const runs = [
    turns.run('a', task('a1')),
    turns.run('a', task('a2')),
    turns.run('a', task('a3')),
    turns.run('b', task('b1')),
    turns.run('b', task('b2')),
    turns.run('c', task('c1')),
  ];
  await new Promise((r) => setImmediate(r));
  expect(started).toEqual(['a1']);
  expect(turns.pendingCount).toBe(5);
  for (const name of ['a1', 'b1', 'c1', 'a2', 'b2', 'a3']) await finish(name);
  // Behind a1, the other callers' first tasks come before a's second and third; then turn by turn.
  expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  expect(await Promise.all(runs)).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'c1']);
  expect(turns.activeCount).toBe(0);
});

test('with two turns, a caller running one task waits behind a caller running none', async () => {
  const turns = new FairTurns(2);
  const started: string[] = [];
  const { task, finish } = tasks(started);
  const runs = [
    turns.run('a', task('a1')),
    turns.run('b', task('b1')),
    turns.run('a', task('a2')),
    turns.run('c', task('c1')),
  ];
  await new Promise((r) => setImmediate(r));
  expect(started).toEqual(['a1', 'b1']);
  // b's turn ends while a still runs a1: the turn goes to c (none running), not to a's second.
  await finish('b1');
  expect(started).toEqual(['a1', 'b1', 'c1']);
  for (const name of ['a1', 'c1', 'a2']) await finish(name);
  expect(await Promise.all(runs)).toEqual(['a1', 'b1', 'a2', 'c1']);
  expect(turns.activeCount).toBe(0);
});

test('a task that fails gives its turn to the next in line', async () => {
  const turns = new FairTurns(1);
  const first = turns.run('a', () => Promise.reject(new Error('cancelled while waiting')));
  const second = turns.run('b', () => Promise.resolve('b1'));
  await expect(first).rejects.toThrow('cancelled while waiting');
  expect(await second).toBe('b1');
  expect(turns.activeCount).toBe(0);
});

test('a task cancelled while it waits leaves the line at once: no place, no turn, no caller kept', async () => {
  const turns = new FairTurns(1);
  const started: string[] = [];
  const { task, finish } = tasks(started);
  const first = turns.run('a', task('a1'));
  const controllers = Array.from({ length: 50 }, () => new AbortController());
  const gone = controllers.map((c, i) => turns.run('b', task(`b${i}`), c.signal));
  const waiting = turns.run('c', task('c1'));
  await new Promise((r) => setImmediate(r));
  expect(turns.pendingCount).toBe(51);
  for (const c of controllers) c.abort(new Error('client went away'));
  for (const g of gone) await expect(g).rejects.toThrow('client went away');
  expect(turns.pendingCount).toBe(1);
  await finish('a1');
  expect(started).toEqual(['a1', 'c1']);
  await finish('c1');
  expect(await Promise.all([first, waiting])).toEqual(['a1', 'c1']);
  expect(turns.activeCount).toBe(0);
  expect(turns.pendingCount).toBe(0);
  // An aborted signal never waits nor runs.
  const late = new AbortController();
  late.abort(new Error('already gone'));
  await expect(turns.run('d', task('d1'), late.signal)).rejects.toThrow('already gone');
  expect(started).toEqual(['a1', 'c1']);
});

test('callers that end a task and send the next at once do not starve a caller served before them', async () => {
  const turns = new FairTurns(1);
  const started: string[] = [];
  const { task, finish } = tasks(started);
  // x is served once, then waits with its second task behind a1.
  const x1 = turns.run('x', task('x1'));
  await new Promise((r) => setImmediate(r));
  const a1 = turns.run('a', task('a1'));
  const b1 = turns.run('b', task('b1'));
  const x2 = turns.run('x', task('x2'));
  await finish('x1');
  // a and b each send their next task as soon as their last one has answered.
  let next = 2;
  const more: Promise<string>[] = [];
  for (let turn = 0; turn < 6 && !started.includes('x2'); turn += 1) {
    const running = started.at(-1) as string;
    await finish(running);
    const who = running[0];
    if (who === 'a' || who === 'b') more.push(turns.run(who, task(`${who}${next++}`)));
  }
  // x's second task starts after a's and b's first (they had not been served yet), not later.
  expect(started.slice(0, 4)).toEqual(['x1', 'a1', 'b1', 'x2']);
  await finish('x2');
  for (const name of started.slice(4)) await finish(name);
  while (turns.activeCount > 0 || turns.pendingCount > 0) await finish(started.at(-1) as string);
  await Promise.all([x1, a1, b1, x2, ...more]);
});
