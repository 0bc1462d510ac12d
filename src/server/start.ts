import { serve } from '@hono/node-server';
import { WebSocketServer } from 'ws';
import type { WsTiming } from './routes/websocket.js';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { SafeSourceReader } from '../node/safe-reader.js';
import { ConfigError } from '../core/errors/config-error.js';
import { MemoryHttpCache } from '../node/http-cache.js';
import { DEFAULT_VERIFY_URL } from './challenge.js';
import { SqliteStore } from './store/sqlite-store.js';
import { UsageRecorder } from './access/usage.js';

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
  /** The SQLite file (created and migrated on first start). */
  dbFile: string;
  log: (m: string) => void;
  /** WebSocket timings; tests shorten them. */
  wsTiming?: WsTiming;
}): Promise<RunningServer> {
  const cache = new MemoryHttpCache();
  const makeReader = (hooks?: import('./deps.js').ReaderHooks) =>
    new SafeSourceReader({
      cache,
      onResponse: hooks?.onResponse,
      onCache: hooks?.onCache,
      allowPrivate: opts.allowPrivateSources,
      timeoutMs: 30_000,
      retries: 2,
      maxBytes: 20 * 1024 * 1024,
      userAgent: `flc/${opts.version} (server)`,
    });
  const envOverrides = parseOverrides(process.env.FLC_CONFIG_OVERRIDES);
  const env = process.env;
  const challenge = { secretKey: env.CHALLENGE_SECRET_KEY || undefined, siteKey: env.CHALLENGE_SITE_KEY || undefined, verifyUrl: env.CHALLENGE_VERIFY_URL || DEFAULT_VERIFY_URL };
  const store = new SqliteStore(opts.dbFile);
  const startedAt = Date.now();
  store.recordDeployment({ version: opts.version, nodeVersion: process.version, startedAt: new Date(startedAt).toISOString() });
  const usage = new UsageRecorder(store, () => Date.now(), 1_000, opts.log);
  // Counts of a quiet second are written by the timer rather than the next request.
  const flushing = setInterval(() => usage.flush(), 1_000);
  flushing.unref();
  const deps = { version: opts.version, now: () => Date.now(), startedAt, store, makeReader, envOverrides, challenge, errorTrackerDsn: env.ERRORTRACKER_DSN || undefined, usage };
  const app = createApp(deps, opts.log, opts.wsTiming);
  const wss = new WebSocketServer({ noServer: true });
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: opts.host, port: opts.port, websocket: { server: wss } }, (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            const force = setTimeout(() => {
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            }, graceMs);
            force.unref();
            // Open WebSockets are closed so their compilations are cancelled.
            for (const client of wss.clients) client.close(1001, 'server shutting down');
            server.close(() => {
              clearTimeout(force);
              clearInterval(flushing);
              usage.flush();
              store.close();
              done();
            });
            (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}

/** FLC_CONFIG_OVERRIDES: a JSON object merged by `/api/configuration/resolve` with `applyEnvOverrides`. */
function parseOverrides(raw: string | undefined): unknown {
  if (!raw) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new ConfigError([{ path: 'FLC_CONFIG_OVERRIDES', message: `not JSON: ${(e as Error).message}` }]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError([{ path: 'FLC_CONFIG_OVERRIDES', message: 'must be a JSON object' }]);
  }
  return value;
}
