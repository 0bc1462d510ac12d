import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';

export interface RunningServer {
  url: string;
  /** Stops accepting connections and waits (up to `graceMs`) for requests in flight. */
  close(graceMs?: number): Promise<void>;
}

/** Starts the HTTP server on `host:port` (port 0 picks a free one). */
export function startServer(opts: { host: string; port: number; version: string; log: (m: string) => void }): Promise<RunningServer> {
  const app = createApp({ version: opts.version, now: () => Date.now(), startedAt: Date.now() }, opts.log);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: opts.host, port: opts.port }, (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            const force = setTimeout(() => {
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            }, graceMs);
            force.unref();
            server.close(() => {
              clearTimeout(force);
              done();
            });
            (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}
