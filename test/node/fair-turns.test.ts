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
