import { readFile } from 'node:fs/promises';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';

export interface CachedResponse {
  url: string;
  etag?: string;
  lastModified?: string;
  storedAt: string;
  /** When a 304 last confirmed the body (kept for `onSourceError: stale`). */
  checkedAt?: string;
  /** The body's text as UTF-8 bytes (the fetcher's), or as the text itself. */
  body: Uint8Array | string;
}

/** A cached body as UTF-8 bytes. */
export const cachedBytes = ({ body }: CachedResponse): Uint8Array =>
  typeof body === 'string' ? Buffer.from(body) : body;

/** A cached body as text. */
export const cachedText = ({ body }: CachedResponse): string =>
  typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');

/**
 * Where downloaded bodies and their validators are kept between requests. The fetcher
 * only stores responses that carry an ETag or Last-Modified.
 */
export interface ResponseCache {
  get(url: string): Promise<CachedResponse | null>;
  put(entry: CachedResponse): Promise<void>;
  /** Records that the server confirmed the cached body (304) at `at`. */
  touch?(url: string, at: string): Promise<void>;
}

/** Bytes the server's in-memory response cache may hold by default (`--http-cache-max-bytes`). */
export const DEFAULT_HTTP_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * An in-memory cache of the most recently used responses (for the server), bounded in bytes:
 * the least recently used bodies go first, and a body larger than the whole bound is not kept.
 */
export class MemoryHttpCache implements ResponseCache {
  private readonly entries: LRUCache<string, CachedResponse>;

  constructor(readonly maxBytes = DEFAULT_HTTP_CACHE_BYTES) {
    this.entries = new LRUCache<string, CachedResponse>({
      // A bound of 0 keeps nothing: every entry is larger than 1 byte.
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (entry) =>
        (typeof entry.body === 'string' ? Buffer.byteLength(entry.body) : entry.body.byteLength) +
        entry.url.length +
        (entry.etag?.length ?? 0) +
        (entry.lastModified?.length ?? 0) +
        256,
    });
  }

  /** The estimated bytes held now (never above `maxBytes`). */
  get bytes(): number {
    return this.entries.calculatedSize;
  }

  async get(url: string): Promise<CachedResponse | null> {
    return this.entries.get(url) ?? null;
  }

  async put(entry: CachedResponse): Promise<void> {
    this.entries.set(entry.url, entry);
  }
}

/** A view of `cache` that answers from it but adds nothing to it. */
export function readOnlyCache(cache: ResponseCache): ResponseCache {
  return { get: (url) => cache.get(url), put: async () => {} };
}

/**
 * An on-disk HTTP cache keyed by URL, holding the body and its validators so the
 * next download can be a conditional request answered with 304.
 */
export class HttpCache implements ResponseCache {
  constructor(readonly dir: string) {}

  private paths(url: string) {
    const key = createHash('sha256').update(url).digest('hex');
    return { meta: join(this.dir, `${key}.json`), body: join(this.dir, `${key}.body`) };
  }

  async get(url: string): Promise<CachedResponse | null> {
    const p = this.paths(url);
    try {
      const meta = JSON.parse(await readFile(p.meta, 'utf8')) as Omit<CachedResponse, 'body'>;
      if (meta.url !== url) return null;
      return { ...meta, body: await readFile(p.body) };
    } catch {
      return null;
    }
  }

  async put(entry: CachedResponse): Promise<void> {
    const p = this.paths(entry.url);
    const { body, ...meta } = entry;
    // Body first: a meta file is only ever written next to a complete body.
    await writeFileAtomic(p.body, body);
    await writeFileAtomic(p.meta, JSON.stringify(meta));
  }

  async touch(url: string, at: string): Promise<void> {
    const p = this.paths(url);
    try {
      const meta = JSON.parse(await readFile(p.meta, 'utf8')) as Omit<CachedResponse, 'body'>;
      if (meta.url === url) await writeFileAtomic(p.meta, JSON.stringify({ ...meta, checkedAt: at }));
    } catch {
      // No entry to confirm.
    }
  }
}
