import { readFile } from 'node:fs/promises';
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
  body: string;
}

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

/** An in-memory cache of the most recently used `capacity` responses (for the server). */
export class MemoryHttpCache implements ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();

  constructor(private readonly capacity = 200) {}

  async get(url: string): Promise<CachedResponse | null> {
    const entry = this.entries.get(url);
    if (!entry) return null;
    this.entries.delete(url);
    this.entries.set(url, entry);
    return entry;
  }

  async put(entry: CachedResponse): Promise<void> {
    this.entries.delete(entry.url);
    this.entries.set(entry.url, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
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
      return { ...meta, body: await readFile(p.body, 'utf8') };
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
