import type { SourceReader } from '../core/load/source-reader.js';
import type { ChallengeSettings } from './challenge.js';
import type { Store } from './store/store.js';
import type { UsageRecorder } from './access/usage.js';

/** What a reader reports about each HTTP response. */
export interface NetworkReport {
  url: string;
  status: number;
  durationMs: number;
  bytes?: number;
}

/** A reader for one compilation (told where to report downloads); closed when it ends. */
export interface CacheReport {
  operation: 'hit' | 'miss' | 'write';
  url: string;
  size?: number;
}

export interface ReaderHooks {
  onResponse?: (r: NetworkReport) => void;
  onCache?: (c: CacheReport) => void;
}

export type ReaderFactory = (hooks?: ReaderHooks) => SourceReader & { close(): Promise<void> };


/** What the app is built from; nothing starts or reads the environment on import. */
export interface AppDeps {
  /** What survives restarts (SQLite on one machine). */
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
  /** The error tracker's public DSN for browsers (ERRORTRACKER_DSN). */
  errorTrackerDsn?: string;
  /** Where per-user request counts go; the server flushes it at shutdown (one is made if absent). */
  usage?: UsageRecorder;
}
