import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import type { SourceReader } from '../core/load/source-reader.js';
import { SourceRefusedError } from '../core/errors/source-refused-error.js';
import { AddressRefusedError, BodyTooLargeError, HttpFetcher, REFUSED_ADDRESS, type HttpFetcherOptions } from './http-fetcher.js';
import { addressProblem } from './address-policy.js';
import type { ResponseCache } from './http-cache.js';

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
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void;

/**
 * The reader a server compile uses: HTTP(S) only; no file paths or `file:` URLs; and no
 * connection to a private, loopback, link-local or metadata address. The address check
 * runs in the connection's own DNS lookup, on every connection (redirects and includes
 * too), so a name cannot resolve to a public address for a check and a private one for
 * the request.
 */
export class SafeSourceReader implements SourceReader {
  private readonly http: HttpFetcher;

  constructor(private readonly opts: SafeReaderOptions) {
    const lookup = (hostname: string, options: object, callback: LookupCallback) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, []);
        const list = addresses as { address: string; family: number }[];
        const bad = opts.allowPrivate ? undefined : list.map((a) => addressProblem(a.address)).find((p) => p !== null);
        if (bad) return callback(Object.assign(new Error(`${hostname} resolves to ${bad}`), { code: REFUSED_ADDRESS }), []);
        if ((options as { all?: boolean }).all) return callback(null, list);
        return callback(null, list[0].address, list[0].family);
      });
    };
    this.http = new HttpFetcher({ ...opts, retryBaseMs: 300, concurrency: 4, cache: opts.cache ?? null, lookup });
  }

  resolve(ref: string, base: string | null): string {
    if (/^https?:\/\//i.test(ref)) return ref;
    if (base !== null && /^https?:\/\//i.test(base)) return new URL(ref, base).href;
    throw new SourceRefusedError(ref, 'only http:// and https:// sources can be compiled by the server');
  }

  async read(location: string, signal?: AbortSignal): Promise<string> {
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
    if (isIP(host) && !this.opts.allowPrivate) {
      const problem = addressProblem(host);
      if (problem) throw new SourceRefusedError(location, problem);
    }
    try {
      return await this.http.get(location, signal);
    } catch (e) {
      if (e instanceof AddressRefusedError || e instanceof BodyTooLargeError) throw new SourceRefusedError(location, e.message);
      throw e;
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
