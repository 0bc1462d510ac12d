import { serve } from '@hono/node-server';
import { WebSocketServer } from 'ws';
import { WS_LIMITS, type WsTiming } from './routes/websocket.js';
import type { Server } from 'node:http';
import { cutStalledSockets } from '../node/stalled-sockets.js';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { SafeSourceReader, sourceAgent } from '../node/safe-reader.js';
import { ConfigError } from '../core/errors/index.js';
import { MemoryHttpCache, readOnlyCache } from '../node/http-cache.js';
import { DEFAULT_VERIFY_URL } from './challenge.js';
import { gatewaySettingsFromEnv } from './access/gateway.js';
import { openStore } from './store/open.js';
import type { StoreLocation } from './store/location.js';
import { UsageRecorder } from './access/usage.js';
import { notifySettingsFromEnv } from './notify/settings.js';
import { CompilePool, type CompilePoolOptions } from '../node/compile-pool.js';
import type { AddressPolicy } from '../node/address-policy.js';
import { DEFAULT_BODY_LIMIT } from './body-limit.js';
import { parseTrustedProxies } from './client-address.js';
import { JobRunner, QUEUE_DEFAULTS, type QueueOptions } from './queue/runner.js';
import { jobExecutor } from './queue/execute.js';
import { CONTAINER_DEFAULTS, ContainerCompiler, type ContainerOptions } from '../node/container-compiler.js';
import { flashSettingsFromEnv } from './flash/flash-messages.js';
import { ErrorEventWriter } from './error-events.js';

export interface RunningServer {
  url: string;
  /** Stops accepting connections and waits (up to `graceMs`) for requests in flight. */
  close(graceMs?: number): Promise<void>;
}

/** Starts the HTTP server on `host:port` (port 0 picks a free one). */
export async function startServer(opts: {
  host: string;
  port: number;
  version: string;
  allowPrivateSources: boolean;
  /** The store: a SQLite file (created on first start) or a PostgreSQL database; migrated on start. */
  store: StoreLocation;
  /** PostgreSQL: the low-privilege connection the admin query route runs on (`--query-db`). */
  queryDb?: string;
  /** Reverse proxies whose `X-Forwarded-For` names the client (addresses or CIDRs, comma-separated). */
  trustProxy?: string;
  /** IPv6 addresses in one network of this many bits count as one rate-limit client (`--limit-ipv6-prefix`). */
  ipv6LimitPrefix?: number;
  log: (m: string) => void;
  /** WebSocket timings; tests shorten them. */
  wsTiming?: Partial<WsTiming>;
  /**
   * Bytes of answers a connection (HTTP or WebSocket) may leave unsent (`--max-unsent-bytes`,
   * 64 MiB); one above it for `unsentGraceMs` (10 s), or that sent nothing for as long, is cut;
   * past four times it in all, the connections that sent nothing since the last look are cut.
   */
  maxUnsentBytes?: number;
  unsentGraceMs?: number;
  /** The worker pool's size, deadlines and answer limit (`--compile-workers`, `--compile-timeout`, `--ast-*`). */
  pool?: CompilePoolOptions;
  /** Replaces the address policy of downloads (tests let a loopback address play the Internet). */
  addressPolicy?: AddressPolicy;
  /** The job queue's workers, retention and lease (`--queue-*`). */
  queue?: Partial<QueueOptions>;
  /** Container compiles' memory, time and concurrency limits (`--container-*`, `--containers`). */
  container?: Partial<ContainerOptions>;
  /** Bytes of compile results kept for repeats (`--compile-cache-max-bytes`). */
  compileCacheBytes?: number;
  /** Bytes of downloaded lists kept for conditional requests (`--http-cache-max-bytes`). */
  httpCacheBytes?: number;
  /** Mounts the web console (`--no-console` leaves it out). */
  console?: import('./deps.js').AppDeps['console'];
}): Promise<RunningServer> {
  const cache = new MemoryHttpCache(opts.httpCacheBytes);
  const reading = { allowPrivate: opts.allowPrivateSources, policy: opts.addressPolicy, timeoutMs: 30_000 };
  const sources = sourceAgent(reading);
  const makeReader = (hooks?: import('./deps.js').ReaderHooks) =>
    new SafeSourceReader({
      ...reading,
      dispatcher: sources,
      cache: hooks?.store === false ? readOnlyCache(cache) : cache,
      onResponse: hooks?.onResponse,
      onCache: hooks?.onCache,
      retries: 2,
      maxBytes: 20 * 1024 * 1024,
      userAgent: `flc/${opts.version} (server)`,
    });
  const envOverrides = parseOverrides(process.env.FLC_CONFIG_OVERRIDES);
  const env = process.env;
  const challenge = {
    secretKey: env.CHALLENGE_SECRET_KEY || undefined,
    siteKey: env.CHALLENGE_SITE_KEY || undefined,
    verifyUrl: env.CHALLENGE_VERIFY_URL || DEFAULT_VERIFY_URL,
  };
  const trustedProxies = parseTrustedProxies(opts.trustProxy);
  const flash = flashSettingsFromEnv(env);
  const store = await openStore(opts.store, { log: opts.log, exclusive: true });
  opts.log(`store: ${store.description}`);
  if (opts.store.engine === 'postgres') {
    const refusal = await store.prepareQueries(opts.queryDb);
    opts.log(refusal ? `query route off: ${refusal}` : 'query route: on a low-privilege role');
  }
  const startedAt = Date.now();
  await store.recordDeployment({
    version: opts.version,
    nodeVersion: process.version,
    startedAt: new Date(startedAt).toISOString(),
  });
  const usage = new UsageRecorder(store, () => Date.now(), 1_000, opts.log);
  // Counts of a quiet second are written by the timer rather than the next request.
  const flushing = setInterval(() => void usage.flush(), 1_000);
  flushing.unref();
  const deps = {
    version: opts.version,
    now: () => Date.now(),
    startedAt,
    store,
    makeReader,
    envOverrides,
    challenge,
    browserDsn: env.SENTRY_DSN || undefined,
    notify: notifySettingsFromEnv(env),
    usage,
    pool: new CompilePool(opts.pool),
    trustedProxies,
    ipv6LimitPrefix: opts.ipv6LimitPrefix,
    gateway: gatewaySettingsFromEnv(env),
    container: new ContainerCompiler({ ...CONTAINER_DEFAULTS, ...opts.container }),
    flash,
    errorEvents: new ErrorEventWriter(store, opts.log),
    compileCacheBytes: opts.compileCacheBytes,
    console: opts.console,
  };
  const queueOptions = { ...QUEUE_DEFAULTS, ...opts.queue };
  const queue = new JobRunner(store.jobs, jobExecutor(deps), queueOptions, deps.now, opts.log);
  const unsent = {
    maxBufferedBytes: opts.maxUnsentBytes ?? WS_LIMITS.maxBufferedBytes,
    drainMs: opts.unsentGraceMs ?? WS_LIMITS.drainMs,
  };
  const app = createApp({ ...deps, queue }, opts.log, { ...WS_LIMITS, ...unsent, ...opts.wsTiming });
  // A message is held whole before it is parsed: the same limit as a request body.
  const wss = new WebSocketServer({ noServer: true, maxPayload: DEFAULT_BODY_LIMIT });
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, hostname: opts.host, port: opts.port, websocket: { server: wss } },
      (info: AddressInfo) => {
        const unwatch = cutStalledSockets(server, unsent.maxBufferedBytes, unsent.drainMs);
        const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        // Jobs accepted before a restart (or left by a process that died) are taken up now.
        queue.start();
        resolve({
          url: `http://${host}:${info.port}`,
          close: (graceMs = 10_000) =>
            new Promise<void>((done) => {
              // Compiles in flight end now (as cancelled), so their requests answer and close; queued
              // jobs running here go back to the queue for the next start.
              const released = queue.stop();
              void deps.pool.destroy();
              const force = setTimeout(() => server.closeAllConnections(), graceMs);
              force.unref();
              // Open WebSockets are closed so their compilations are cancelled.
              for (const client of wss.clients) client.close(1001, 'server shutting down');
              server.close(() => {
                clearTimeout(force);
                unwatch();
                clearInterval(flushing);
                void released
                  .then(() => usage.flush())
                  .then(() => deps.errorEvents.flush())
                  .then(() => Promise.all([store.close(), sources.close()]))
                  .catch((err: Error) => opts.log(`store: closing failed: ${err.message}`))
                  .finally(done);
              });
              server.closeIdleConnections();
            }),
        });
      },
    ) as Server;
    server.once('error', (err) => {
      void Promise.all([store.close(), sources.close()]).finally(() => reject(err));
    });
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
