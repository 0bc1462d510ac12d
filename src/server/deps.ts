/** What the app is built from; nothing starts or reads the environment on import. */
export interface AppDeps {
  version: string;
  /** Milliseconds since the epoch; injected so tests control caching and timestamps. */
  now: () => number;
  /** When this server process started (ms since the epoch). */
  startedAt: number;
}
