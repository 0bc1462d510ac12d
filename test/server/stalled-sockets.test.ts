import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { cutStalledSockets } from '../../src/node/stalled-sockets.js';

/**
 * A connection as the watcher sees it: bytes the server wrote (`bytesWritten`), of which
 * `writableLength` wait in this process's memory; `read(n)` is the client taking n of them.
 */
class FakeSocket extends EventEmitter {
  bytesWritten = 0;
  writableLength = 0;
  destroyed = false;
  write(n: number) {
    this.bytesWritten += n;
    this.writableLength += n;
  }
  read(n: number) {
    this.writableLength -= Math.min(n, this.writableLength);
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

const MiB = 1024 * 1024;
let server: EventEmitter;
let stop: () => void;
beforeEach(() => {
  vi.useFakeTimers();
  server = new EventEmitter();
  // 64 MiB a connection for 10 s, as `flc serve` by default.
  stop = cutStalledSockets(server as unknown as Server, 64 * MiB, 10_000);
});
afterEach(() => {
  stop();
  vi.useRealTimers();
});
const connect = () => {
  const socket = new FakeSocket();
  server.emit('connection', socket);
  return socket;
};

test('a client that stops reading an answer under the bound is cut; one that reads slowly is not', () => {
  const stalled = connect();
  const slow = connect();
  const idle = connect();
  stalled.write(20 * MiB);
  slow.write(20 * MiB);
  for (let s = 0; s < 60; s++) {
    slow.read(64 * 1024);
    vi.advanceTimersByTime(1_000);
  }
  // Before, a connection under 64 MiB kept its 20 MiB for as long as the client held it open.
  expect(stalled.destroyed).toBe(true);
  expect(slow.destroyed).toBe(false);
  expect(idle.destroyed).toBe(false);
});

test('many connections under the bound: past four times it in all, the stalled ones go, largest first', () => {
  const readers = Array.from({ length: 4 }, () => connect());
  const stalled = Array.from({ length: 6 }, () => connect());
  for (const r of readers) r.write(40 * MiB);
  // 6 stalled connections of 30-35 MiB: with the readers' 160 MiB, 355 MiB unsent (bound 256 MiB).
  for (const [i, s] of stalled.entries()) s.write((30 + i) * MiB);
  for (const r of readers) r.read(MiB);
  vi.advanceTimersByTime(1_000);
  for (const r of readers) r.read(MiB);
  vi.advanceTimersByTime(1_000);
  // Before the grace: the three largest stalled ones are cut, which leaves 256 MiB or less.
  expect(stalled.map((s) => s.destroyed)).toEqual([false, false, false, true, true, true]);
  expect(readers.some((r) => r.destroyed)).toBe(false);
});
