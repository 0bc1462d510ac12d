import { isIP } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import type { ListBytes, ReadOptions, SourceReader } from '../core/load/source-reader.js';
import { SourceRefusedError } from '../core/errors/index.js';
import {
  AddressRefusedError,
  BodyTooLargeError,
  HttpFetcher,
  RedirectError,
  type HttpFetcherOptions,
} from './http-fetcher.js';
import { addressPolicy, type AddressPolicy } from './address-policy.js';
import { guardedConnector } from './guarded-connect.js';
import type { ResponseCache } from './http-cache.js';

/** Where `ref` points from `base` for a server compile: http(s) URLs only. */
export function resolveHttpLocation(ref: string, base: string | null): string {
  if (/^https?:\/\//i.test(ref)) return ref;
  if (base !== null && /^https?:\/\//i.test(base)) return new URL(ref, base).href;
  throw new SourceRefusedError(ref, 'only http:// and https:// sources can be compiled by the server');
}

/** Redirects a server download follows; one more is a refused source. */
export const SERVER_MAX_REDIRECTS = 5;

export interface SafeReaderOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  retries: number;
  maxBytes: number;
  userAgent: string;
  /** Shared between readers so repeat downloads revalidate (304) instead of downloading. */
  cache?: ResponseCache | null;
  onResponse?: HttpFetcherOptions['onResponse'];
  onCache?: HttpFetcherOptions['onCache'];
  /** The address policy; by default `addressPolicy({allowPrivate})` (tests inject their own "public"). */
  policy?: AddressPolicy;
  /** The server's connection pool (`sourceAgent`), shared by every reader; else one per reader. */
  dispatcher?: Dispatcher;
}

/** Connections to list hosts kept open between compiles: at most this many per origin. */
export const SOURCE_CONNECTIONS_PER_ORIGIN = 16;
/** How long an idle connection to a list host is kept (shorter when the host says so). */
export const SOURCE_KEEP_ALIVE_MS = 10_000;

/**
 * One keep-alive pool for the server's source downloads, so that the revalidations of a cache hit
 * reuse connections instead of opening one per source; each new connection is checked against
 * the address policy as a reader's own would be.
 */
export function sourceAgent(opts: Pick<SafeReaderOptions, 'allowPrivate' | 'policy' | 'timeoutMs'>): Agent {
  const policy = opts.policy ?? addressPolicy({ allowPrivate: opts.allowPrivate });
  return new Agent({
    keepAliveTimeout: SOURCE_KEEP_ALIVE_MS,
    connections: SOURCE_CONNECTIONS_PER_ORIGIN,
    connect: guardedConnector(policy, opts.timeoutMs),
  });
}

/**
 * The reader a server compile uses: HTTP(S) only; no file paths or `file:` URLs; at most five
 * redirects; and no connection to a private, loopback, link-local or metadata address. The
 * address check runs when each connection is opened (guarded-connect.ts), on the address
 * connected to, so neither an IP literal, a redirect, an include nor a name that resolves
 * differently the second time gets past it.
 */
export class SafeSourceReader implements SourceReader {
  private readonly http: HttpFetcher;
  private readonly policy: AddressPolicy;

  constructor(opts: SafeReaderOptions) {
    this.policy = opts.policy ?? addressPolicy({ allowPrivate: opts.allowPrivate });
    this.http = new HttpFetcher({
      ...opts,
      retryBaseMs: 300,
      concurrency: 4,
      cache: opts.cache ?? null,
      connect: guardedConnector(this.policy, opts.timeoutMs),
      maxRedirects: SERVER_MAX_REDIRECTS,
      networkDetail: false,
    });
  }

  resolve(ref: string, base: string | null): string {
    return resolveHttpLocation(ref, base);
  }

  read(location: string, signal?: AbortSignal, options?: ReadOptions): Promise<string> {
    return this.download(location, () => this.http.get(location, signal, options?.origin));
  }

  /** `read`'s text as UTF-8 bytes, never decoded (`HttpFetcher.getBytes`), for the compile to pack as they are. */
  readBytes(location: string, signal?: AbortSignal, options?: ReadOptions): Promise<ListBytes> {
    return this.download(location, () => this.http.getBytes(location, signal, options?.origin));
  }

  /** Runs `fetch` on `location` once the URL passes the checks; refusals as SourceRefusedError. */
  private async download<T>(location: string, fetch: () => Promise<T>): Promise<T> {
    let url: URL;
    try {
      url = new URL(location);
    } catch {
      throw new SourceRefusedError(location, 'not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new SourceRefusedError(location, `the ${url.protocol} scheme is not allowed`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const problem = this.policy(host);
      if (problem) throw new SourceRefusedError(location, problem);
    }
    try {
      return await fetch();
    } catch (e) {
      if (e instanceof AddressRefusedError || e instanceof BodyTooLargeError || e instanceof RedirectError)
        throw new SourceRefusedError(location, e.message);
      throw e;
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
