import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Cuts the connections of `server` whose unsent bytes stay above `maxBytes` for `graceMs`: a
 * client that stopped reading a large answer would otherwise keep it in this process's memory
 * for as long as it holds the connection open. A client that reads, however slowly, takes its
 * answer below the bound in time. Answers the function that stops watching.
 */
export function cutStalledSockets(server: Server, maxBytes: number, graceMs: number): () => void {
  const sockets = new Set<Socket>();
  /** When each socket went above the bound. */
  const over = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      over.delete(socket);
    });
  });
  const timer = setInterval(
    () => {
      const now = Date.now();
      for (const socket of sockets) {
        if (socket.writableLength <= maxBytes) over.delete(socket);
        else if (!over.has(socket)) over.set(socket, now);
        else if (now - over.get(socket)! >= graceMs) socket.destroy();
      }
    },
    Math.max(50, Math.min(1_000, graceMs / 4)),
  );
  timer.unref();
  return () => clearInterval(timer);
}
