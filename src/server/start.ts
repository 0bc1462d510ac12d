import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { SafeSourceReader } from '../node/safe-reader.js';

export interface RunningServer {
  url: string;
  /** Stops accepting connections and waits (up to `graceMs`) for requests in flight. */
  close(graceMs?: number): Promise<void>;
}

/** Starts the HTTP server on `host:port` (port 0 picks a free one). */
export function startServer(opts: {
  host: string;
  port: number;
  version: string;
  allowPrivateSources: boolean;
  log: (m: string) => void;
}): Promise<RunningServer> {
  const makeReader = () =>
    new SafeSourceReader({
      allowPrivate: opts.allowPrivateSources,
      timeoutMs: 30_000,
      retries: 2,
      maxBytes: 20 * 1024 * 1024,
      userAgent: `flc/${opts.version} (server)`,
    });
  const app = createApp({ version: opts.version, now: () => Date.now(), startedAt: Date.now(), makeReader }, opts.log);
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
