import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** The unsent bytes of all connections together may come to this many times a connection's bound. */
export const UNSENT_TOTAL_FACTOR = 4;

/** What is known of a watched connection. */
interface Watched {
  /** When its unsent bytes went above the bound, if they are. */
  overSince?: number;
  /** Bytes the operating system has taken from it, when last looked at. */
  sent: number;
  /** When it last had nothing unsent, or the operating system last took some of it. */
  movedAt: number;
}

/**
 * Cuts the connections of `server` that hold answers in this process's memory for a client that
 * does not read them:
 * - unsent bytes above `maxBytes` for `graceMs` (a large answer not read fast enough);
 * - unsent bytes, however few, of which nothing was sent for `graceMs` (a client that stopped
 *   reading; each such connection under the bound would otherwise hold its answer for as long as
 *   it stays open, and many of them any amount);
 * - while all connections' unsent bytes come to more than `UNSENT_TOTAL_FACTOR` times `maxBytes`,
 *   those that sent nothing since the last look, the largest first, until the rest fit.
 * A client that reads, however slowly, keeps its connection. Answers the function that stops watching.
 */
export function cutStalledSockets(server: Server, maxBytes: number, graceMs: number): () => void {
  const watched = new Map<Socket, Watched>();
  const sentBy = (socket: Socket) => {
    // A write counts as unsent (writableLength) until the kernel has taken all of it, which for a
    // large answer written at once may be long after a reading client began taking it: libuv's
    // queue (the handle's writeQueueSize) says how much of what was handed to it is still there.
    const inner = socket as unknown as { _bytesDispatched?: number; _handle?: { writeQueueSize?: number } | null };
    const queued = inner._handle?.writeQueueSize;
    if (typeof inner._bytesDispatched === 'number' && typeof queued === 'number')
      return inner._bytesDispatched - queued;
    return socket.bytesWritten - socket.writableLength;
  };
  server.on('connection', (socket: Socket) => {
    watched.set(socket, { sent: sentBy(socket), movedAt: Date.now() });
    socket.once('close', () => watched.delete(socket));
  });
  const maxTotal = maxBytes * UNSENT_TOTAL_FACTOR;
  const timer = setInterval(
    () => {
      const now = Date.now();
      let total = 0;
      const stuck: Socket[] = [];
      for (const [socket, seen] of watched) {
        const unsent = socket.writableLength;
        const sent = sentBy(socket);
        const moved = unsent === 0 || sent > seen.sent;
        seen.sent = sent;
        if (moved) seen.movedAt = now;
        if (unsent <= maxBytes) seen.overSince = undefined;
        else seen.overSince ??= now;
        const overTooLong = seen.overSince !== undefined && now - seen.overSince >= graceMs;
        if (overTooLong || now - seen.movedAt >= graceMs) {
          watched.delete(socket);
          socket.destroy();
          continue;
        }
        total += unsent;
        if (!moved) stuck.push(socket);
      }
      if (total <= maxTotal) return;
      stuck.sort((a, b) => b.writableLength - a.writableLength);
      for (const socket of stuck) {
        if (total <= maxTotal) break;
        total -= socket.writableLength;
        watched.delete(socket);
        socket.destroy();
      }
    },
    Math.max(50, Math.min(1_000, graceMs / 4)),
  );
  timer.unref();
  return () => clearInterval(timer);
}
