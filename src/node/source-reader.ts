import { SourceRefusedError } from '../core/errors/index.js';
import { isUtf8 } from 'node:buffer';
import { open, readFile } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ListBytes, ReadOptions, SourceReader } from '../core/load/source-reader.js';
import type { HttpFetcher, HttpFetcherOptions } from './http-fetcher.js';

const URL_RE = /^[a-z][a-z0-9+.-]*:\/\//i;
const HTTP_RE = /^https?:\/\//i;

export interface NodeReaderOptions extends Omit<HttpFetcherOptions, 'cache'> {
  /** Relative paths in the configuration resolve against this folder. */
  baseDir: string;
  /** Cache folder, or null for no cache. */
  cacheDir: string | null;
  /** A source `-` is standard input, read once (the command line's `-i -`); else a file named `-`. */
  stdin?: NodeJS.ReadableStream;
}

export const DEFAULT_HTTP = {
  timeoutMs: 30_000,
  retries: 3,
  retryBaseMs: 500,
  concurrency: 8,
} as const;

/** The User-Agent flc's downloads send. */
export const userAgentOf = (version: string) => `flc/${version} (+https://www.npmjs.com/package/flc)`;

/** A SourceReader over local files, `file://` URLs and HTTP(S). Call `close()` when done. */
export class NodeSourceReader implements SourceReader {
  private http: Promise<HttpFetcher> | null = null;
  private stdinRead: Promise<ListBytes> | null = null;

  constructor(private readonly opts: NodeReaderOptions) {}

  /** The HTTP client and its cache, created (undici loaded) on the first download only. */
  private fetcher(): Promise<HttpFetcher> {
    this.http ??= Promise.all([import('./http-fetcher.js'), import('./http-cache.js')]).then(
      ([{ HttpFetcher }, { HttpCache }]) =>
        new HttpFetcher({ ...this.opts, cache: this.opts.cacheDir ? new HttpCache(this.opts.cacheDir) : null }),
    );
    return this.http;
  }

  resolve(ref: string, base: string | null): string {
    // A saved rule set lives in a server's store: refused by name rather than looked for as a file.
    if (/^flc-ruleset:/i.test(ref)) {
      throw new SourceRefusedError(
        ref,
        'saved rule sets (flc-ruleset:<id>) are read only by flc serve; compile this configuration there ' +
          '(POST /api/compile), or put the rules in a file',
      );
    }
    if (URL_RE.test(ref)) return ref;
    if (ref === '-' && base === null && this.opts.stdin) return '-';
    if (base === null) return resolvePath(this.opts.baseDir, ref);
    if (URL_RE.test(base)) return new URL(ref, base).href;
    return resolvePath(dirname(base), ref);
  }

  async read(location: string, signal?: AbortSignal, options?: ReadOptions): Promise<string> {
    if (HTTP_RE.test(location)) return (await this.fetcher()).get(location, signal, options?.origin);
    if (location === '-' && this.opts.stdin) {
      const { bytes, length } = await this.standardInput();
      return Buffer.from(bytes.buffer, bytes.byteOffset, length).toString('utf8');
    }
    return (await readLocal(location, (path) => readFile(path, { signal }))).toString('utf8');
  }

  /**
   * A local file's bytes when they are well-formed UTF-8 (no decoding), or a download's text as
   * bytes (`HttpFetcher.getBytes`), with as much room after them as they take (see ListBytes);
   * null for other files.
   */
  async readBytes(location: string, signal?: AbortSignal, options?: ReadOptions): Promise<ListBytes | null> {
    if (HTTP_RE.test(location)) return (await this.fetcher()).getBytes(location, signal, options?.origin);
    const read =
      location === '-' && this.opts.stdin
        ? await this.standardInput()
        : await readLocal(location, (path) => readWithRoom(path, signal));
    return isUtf8(read.bytes.subarray(0, read.length)) ? read : null;
  }

  /** Standard input, whole, with room after it as a file's bytes have; read on first use only. */
  private standardInput(): Promise<ListBytes> {
    this.stdinRead ??= (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of this.opts.stdin!) chunks.push(Buffer.from(chunk as Buffer));
      const whole = Buffer.concat(chunks);
      const bytes = new Uint8Array(whole.length * 2 + 65_536);
      bytes.set(whole);
      return { bytes, length: whole.length };
    })();
    return this.stdinRead;
  }

  /** The cached copy of an HTTP(S) source and when it was last known good (`onSourceError: stale`). */
  async lastGood(location: string): Promise<{ text: string; at: Date } | null> {
    if (!HTTP_RE.test(location) || !this.opts.cacheDir) return null;
    const { HttpCache, cachedText } = await import('./http-cache.js');
    const entry = await new HttpCache(this.opts.cacheDir).get(location);
    return entry ? { text: cachedText(entry), at: new Date(entry.checkedAt ?? entry.storedAt) } : null;
  }

  async close(): Promise<void> {
    if (this.http) await (await this.http).close();
  }
}

/**
 * Reads the file a path or `file://` URL names with `readPath`; other URLs and failures reject with a plain message.
 */
async function readLocal<T>(location: string, readPath: (path: string) => Promise<T>): Promise<T> {
  const path = location.toLowerCase().startsWith('file:') ? fileURLToPath(location) : location;
  if (URL_RE.test(location) && !location.toLowerCase().startsWith('file:')) {
    throw new Error(`unsupported URL scheme in ${location}`);
  }
  try {
    return await readPath(path);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw new Error(`no such file: ${path}`);
    if (err.code === 'EISDIR') throw new Error(`is a directory: ${path}`);
    throw e;
  }
}

/**
 * The file at `path` in a buffer twice its size (and 64 KiB), so that the compile finds room
 * after it. The buffer is zero-filled, which for a large one is free: its pages are the
 * system's fresh zero pages, and those past what is written are never touched. A file that
 * grows while it is read (or whose size the system does not know) grows the buffer.
 */
async function readWithRoom(path: string, signal?: AbortSignal): Promise<ListBytes> {
  signal?.throwIfAborted();
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    let bytes = new Uint8Array(size * 2 + 65_536);
    let length = 0;
    for (;;) {
      signal?.throwIfAborted();
      if (length === bytes.length) {
        const next = new Uint8Array(bytes.length * 2);
        next.set(bytes);
        bytes = next;
      }
      const { bytesRead } = await file.read(bytes, length, bytes.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return { bytes, length };
  } finally {
    await file.close();
  }
}
