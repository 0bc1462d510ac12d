import type { SourceReader } from '../core/load/source-reader.js';
import type { HttpFetcherOptions } from '../node/http-fetcher.js';
import type { ChallengeSettings } from './challenge.js';
import type { Store } from './store/store.js';
import type { UsageRecorder } from './access/usage.js';
import type { NotifySettings } from './notify/settings.js';
import type { CompilePool, PooledCompileOptions } from '../node/compile-pool.js';
import type { TrustedProxies } from './client-address.js';
import type { GatewaySettings } from './access/gateway.js';
import type { JobRunner } from './queue/runner.js';
import type { ContainerCompiler } from '../node/container-compiler.js';
import type { FlashSettings } from './flash/flash-messages.js';
import type { LiveSessions } from './live-sessions.js';
import type { ErrorEventWriter } from './error-events.js';

/** Where a reader reports its downloads (as the fetcher reports them) and whether it adds to the response cache. */
export interface ReaderHooks extends Pick<HttpFetcherOptions, 'onResponse' | 'onCache'> {
  /** false: the reader may answer from the response cache but adds nothing to it (`no-store` requests). */
  store?: boolean;
}

/** A reader for one compilation (told where to report downloads); closed when it ends. */
export type ReaderFactory = (hooks?: ReaderHooks) => SourceReader & { close(): Promise<void> };

/** What the app is built from; nothing starts or reads the environment on import. */
export interface AppDeps {
  /** What survives restarts: SQLite on one machine, PostgreSQL shared by several servers. */
  store: Store;
  /** Readers for server-side compiles (the safe reader in production). */
  makeReader: ReaderFactory;
  version: string;
  /** Milliseconds since the epoch; injected so tests control caching and timestamps. */
  now: () => number;
  /** When this server process started (ms since the epoch). */
  startedAt: number;
  /** What `applyEnvOverrides` merges into a resolved configuration (FLC_CONFIG_OVERRIDES). */
  envOverrides?: unknown;
  /** Bot-challenge verification; off without a secret. */
  challenge?: ChallengeSettings;
  /** The error tracker's DSN for browsers (SENTRY_DSN), shown by /api/sentry-config without any secret part. */
  browserDsn?: string;
  /** Targets of POST /api/notify (none without settings). */
  notify?: NotifySettings;
  /** Where per-user request counts go; the server flushes it at shutdown (one is made if absent). */
  usage?: UsageRecorder;
  /** Where compiles and rule matching run, with their deadline (in-process without one). */
  pool?: CompilePool;
  /** The caller's share of the pool that compiles made with these dependencies count against. */
  compileShare?: PooledCompileOptions['share'];
  /** Reverse proxies whose `X-Forwarded-For` names the client (`--trust-proxy`); none by default. */
  trustedProxies?: TrustedProxies;
  /** The IPv6 network size (prefix bits) whose addresses the rate limits count as one client; 64 by default. */
  ipv6LimitPrefix?: number;
  /** The access gateway whose assertion config apply, revert and data erasure need (none: no check). */
  gateway?: GatewaySettings;
  /** Runs queued jobs; without one the app makes its own, started by the first job. */
  queue?: JobRunner;
  /** Compiles in a separate, limited process (`POST /api/compile/container`); the defaults without one. */
  container?: ContainerCompiler;
  /** Flash token lifetime and the login location of the redirect contract (60 s, `/login` by default). */
  flash?: FlashSettings;
  /** The open WebSocket connections (made by the app if absent). */
  liveSessions?: LiveSessions;
  /** Bytes of compile results `POST /api/compile` keeps for repeats (`--compile-cache-max-bytes`). */
  compileCacheBytes?: number;
  /** Where browser error reports are written after their answer; the server flushes it at shutdown. */
  errorEvents?: ErrorEventWriter;
  /** Mounts the web console on the app (`src/console`; `flc serve --no-console` leaves it out). */
  console?: (app: import('@hono/zod-openapi').OpenAPIHono, deps: AppDeps, log: (m: string) => void) => void;
}
