import { Agent, fetch, type buildConnector, type Dispatcher, type Response } from 'undici';
import { REFUSED_ADDRESS } from './guarded-connect.js';
import pLimit from 'p-limit';
import { isUtf8 } from 'node:buffer';
import type { ListBytes } from '../core/load/source-reader.js';
import { cachedBytes, type ResponseCache } from './http-cache.js';

export interface HttpFetcherOptions {
  /** Per-request timeout in milliseconds (headers and body). */
  timeoutMs: number;
  /** Extra attempts after a 5xx, 429 or network error. */
  retries: number;
  /** First backoff delay in milliseconds; doubles each attempt, with jitter. */
  retryBaseMs: number;
  /** Downloads in flight at once. */
  concurrency: number;
  cache: ResponseCache | null;
  userAgent: string;
  onLog?: (message: string) => void;
  /** Opens every connection (the server's address policy plugs in here: guarded-connect.ts). */
  connect?: buildConnector.connector;
  /** A connection pool shared with other fetchers (kept open by `close`); else one of its own. */
  dispatcher?: Dispatcher;
  /** Redirects followed per download (fetch's 20 unless set); one more is an error, never retried. */
  maxRedirects?: number;
  /**
   * Whether messages name the network error (`ECONNREFUSED`, …). The server says only that the
   * download failed, so that its answers cannot be used to scan ports.
   */
  networkDetail?: boolean;
  /** Refuse bodies larger than this many bytes. */
  maxBytes?: number;
  /** Told how the response cache served each download (for the server's `cache` events). */
  onCache?: (c: { operation: 'hit' | 'miss' | 'write'; url: string; size?: number }) => void;
  /** Told about every HTTP response (for the server's `network` and `metric` events). */
  onResponse?: (r: { url: string; status: number; durationMs: number; bytes?: number }) => void;
  /**
   * Keep every body downloaded whole, not only those with validators, and record each 304, so
   * that a failed source can be compiled from its last good copy (`onSourceError: stale`).
   */
  keepLastGood?: boolean;
  /** Test hook for the random part of the backoff. */
  random?: () => number;
}

const MAX_RETRY_AFTER_MS = 60_000;

class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    statusText: string,
  ) {
    super(`HTTP ${status}${statusText ? ` ${statusText}` : ''}`);
  }
}

function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Downloads list text over HTTP(S) with timeouts, retries, redirects and revalidation. */
export class HttpFetcher {
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly dispatcher: Dispatcher;

  constructor(private readonly opts: HttpFetcherOptions) {
    this.limit = pLimit(Math.max(1, opts.concurrency));
    this.dispatcher =
      opts.dispatcher ??
      new Agent({
        keepAliveTimeout: 1_000,
        connections: Math.max(1, opts.concurrency),
        ...(opts.connect ? { connect: opts.connect } : {}),
      });
  }

  /** The text at `url`; with `origin`, every redirect hop must stay on that origin (an include's). */
  async get(url: string, signal?: AbortSignal, origin?: string): Promise<string> {
    const body = await this.limit(() => this.download(url, signal, origin));
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  }

  /**
   * `get`, as the UTF-8 bytes of that text (never decoded: `canonicalBody`), in a buffer of their
   * own with as much room after them (ListBytes), for the compile to pack, or to move to another
   * thread, as they are.
   */
  async getBytes(url: string, signal?: AbortSignal, origin?: string): Promise<ListBytes> {
    const body = await this.limit(() => this.download(url, signal, origin));
    const bytes = new Uint8Array(body.byteLength * 2 + 65_536);
    bytes.set(body);
    return { bytes, length: body.byteLength };
  }

  async close(): Promise<void> {
    if (this.dispatcher !== this.opts.dispatcher) await this.dispatcher.close();
  }

  private backoff(attempt: number, retryAfter: string | null): number {
    const seconds = retryAfter === null ? NaN : Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
    const ceiling = this.opts.retryBaseMs * 2 ** attempt;
    return ceiling / 2 + (this.opts.random ?? Math.random)() * (ceiling / 2);
  }

  /**
   * The body as the UTF-8 bytes of its text (`canonicalBody`), refusing more than `maxBytes`
   * without reading it all.
   */
  private async readBody(res: Response): Promise<Uint8Array> {
    const max = this.opts.maxBytes;
    // Without a bound the text is fetch's (`res.text()`), which drops a leading byte order mark.
    if (max === undefined || !res.body) return canonicalBody(new Uint8Array(await res.arrayBuffer()), true);
    const declared = Number(res.headers.get('content-length'));
    if (declared > max) {
      await res.body.cancel();
      throw new BodyTooLargeError(`larger than ${max} bytes`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > max) throw new BodyTooLargeError(`larger than ${max} bytes`);
      chunks.push(chunk);
    }
    return canonicalBody(Buffer.concat(chunks), false);
  }

  /**
   * One request per hop, following at most `maxRedirects` redirects to http(s) URLs, each on
   * `origin` when one is given (the first URL included: a list held to its origin is never
   * requested elsewhere, not even once).
   */
  private async follow(
    url: string,
    init: { signal: AbortSignal; headers: Record<string, string> },
    origin: string | undefined,
  ) {
    const max = this.opts.maxRedirects ?? 20;
    let current = url;
    // fetch refuses a URL with a user name or password in it; asking again would not change that.
    const { username, password } = new URL(url);
    if (username || password) throw new RedirectError('a URL with credentials (user:password@) cannot be fetched');
    const offOrigin = (u: URL, what: string) => {
      if (origin !== undefined && u.origin !== origin)
        throw new OriginError(`${what} ${u.href}, which is not on the origin ${origin} it is held to`);
    };
    offOrigin(new URL(url), 'asked for');
    for (let hop = 0; ; hop += 1) {
      const res = await fetch(current, { ...init, redirect: 'manual', dispatcher: this.dispatcher });
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      if (location === null) return res;
      await res.body?.cancel();
      if (hop >= max) throw new RedirectError(`more than ${max} redirects`);
      const next = new URL(location, current);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new RedirectError(`redirected to a ${next.protocol} URL`);
      }
      if (next.username || next.password) throw new RedirectError('redirected to a URL with credentials');
      offOrigin(next, 'redirected to');
      current = next.href;
    }
  }

  /** The body at `url` (`canonicalBody`), from the cache when the server says it is not modified. */
  private async download(url: string, signal?: AbortSignal, origin?: string): Promise<Uint8Array> {
    const cached = this.opts.cache ? await this.opts.cache.get(url) : null;
    if (this.opts.cache && !cached) this.opts.onCache?.({ operation: 'miss', url });
    let lastError: Error = new Error('no attempt made');
    for (let attempt = 0; attempt <= this.opts.retries; attempt += 1) {
      signal?.throwIfAborted();
      const timeout = AbortSignal.timeout(this.opts.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let retryAfter: string | null = null;
      try {
        const headers: Record<string, string> = { 'user-agent': this.opts.userAgent, accept: 'text/plain, */*' };
        if (cached?.etag) headers['if-none-match'] = cached.etag;
        if (cached?.lastModified) headers['if-modified-since'] = cached.lastModified;
        const requested = performance.now();
        const res = await this.follow(url, { signal: combined, headers }, origin);
        const report = (bytes?: number) =>
          this.opts.onResponse?.({
            url,
            status: res.status,
            durationMs: Math.round(performance.now() - requested),
            bytes,
          });
        if (res.status === 304 && cached) {
          const body = cachedBytes(cached);
          report(0);
          this.opts.onCache?.({ operation: 'hit', url, size: body.byteLength });
          await res.body?.cancel();
          if (this.opts.keepLastGood) await this.opts.cache?.touch?.(url, new Date().toISOString());
          this.opts.onLog?.(`${url}: not modified, using the cached copy`);
          return body;
        }
        if (res.ok) {
          const body = await this.readBody(res);
          report(body.byteLength);
          const etag = res.headers.get('etag') ?? undefined;
          const lastModified = res.headers.get('last-modified') ?? undefined;
          // An empty body is no good copy to fall back on.
          const keep = this.opts.keepLastGood ? !blank(body) : Boolean(etag || lastModified);
          if (this.opts.cache && keep) {
            await this.opts.cache.put({ url, etag, lastModified, storedAt: new Date().toISOString(), body });
            this.opts.onCache?.({ operation: 'write', url, size: body.byteLength });
          }
          return body;
        }
        await res.body?.cancel();
        report();
        lastError = new HttpStatusError(res.status, res.statusText);
        if (!retryable(res.status)) throw lastError;
        retryAfter = res.headers.get('retry-after');
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        if (timeout.aborted) throw new Error(`timed out after ${this.opts.timeoutMs / 1000} s`);
        if (e instanceof HttpStatusError && !retryable(e.status)) throw e;
        if (e instanceof BodyTooLargeError || e instanceof AddressRefusedError || e instanceof RedirectError) throw e;
        const cause = (e as { cause?: Error & { code?: string } }).cause;
        if (cause?.code === REFUSED_ADDRESS) throw new AddressRefusedError(cause.message);
        if (!(e instanceof HttpStatusError)) {
          lastError = new Error(this.opts.networkDetail === false ? 'the download failed' : networkMessage(e));
          // A certificate or TLS failure does not go away by asking again.
          if (cause?.code && TLS_CODE.test(cause.code)) throw lastError;
        }
      }
      if (attempt < this.opts.retries) {
        const delay = this.backoff(attempt, retryAfter);
        this.opts.onLog?.(`${url}: ${lastError.message}; retrying in ${Math.round(delay)} ms`);
        await sleep(delay, signal);
      }
    }
    const tries = this.opts.retries + 1;
    throw new Error(`${lastError.message} (after ${tries} attempt${tries > 1 ? 's' : ''})`);
  }
}

/**
 * A body's text as UTF-8 bytes: the bytes received when they are well-formed UTF-8 (and, where
 * the text drops a leading byte order mark, `dropBom`, begin without one), so that nothing is
 * decoded; else the text decoded (each ill-formed sequence a U+FFFD, as before) and encoded again.
 * Decoded with `Buffer#toString`, these bytes give the text a download always gave.
 */
export function canonicalBody(raw: Uint8Array, dropBom: boolean): Uint8Array {
  const bom = raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
  if (isUtf8(raw) && !(dropBom && bom)) return raw;
  return Buffer.from(dropBom ? new TextDecoder('utf-8').decode(raw) : Buffer.from(raw).toString('utf8'));
}

/** Whether a body's text is empty once trimmed (decoded only when a byte is not ASCII whitespace). */
function blank(body: Uint8Array): boolean {
  for (const b of body) {
    if (b === 32 || (b >= 9 && b <= 13)) continue;
    return b < 128 ? false : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8').trim() === '';
  }
  return true;
}

const TLS_CODE = /CERT|SSL|TLS|UNABLE_TO_VERIFY|SELF_SIGNED|HOSTNAME_MISMATCH/;

/** A body over `maxBytes`; never retried. */
export class BodyTooLargeError extends Error {}

/** The address policy refused the address of a connection (the source's, a redirect's or an include's). */
export class AddressRefusedError extends Error {}

/** Too many redirects, a redirect to a scheme other than http(s), a URL with credentials; never retried. */
export class RedirectError extends Error {}

/** A redirect off the origin a download is held to (an `!#include`'s); never retried. */
export class OriginError extends RedirectError {}

function networkMessage(e: unknown): string {
  const err = e as Error & { cause?: Error & { code?: string } };
  const cause = err.cause;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ''}`;
  return cause?.message ?? err.message ?? String(e);
}
