import { LRUCache } from 'lru-cache';
import { sha256 } from './hash.js';
import type { ListBytes, ReadOptions, SourceReader } from '../core/load/source-reader.js';
import { canonical } from './store/config-sections.js';

/** Equal configurations (whatever order their keys came in) give equal keys. */
export function configurationKey(configuration: unknown): string {
  return sha256(canonical(configuration));
}

/**
 * A list a compile read: its content hash (null when the read failed, and the compile went on
 * without it), and how it was read (an include: held to its origin).
 */
export interface RecordedRead {
  hash: string | null;
  options?: ReadOptions;
}

/**
 * Wraps a reader and records the outcome of every list it reads: its content hash, or that it
 * failed. A failed read is recorded too: a compile that skipped a source (`onSourceError: "skip"`)
 * is valid only while that source still fails, not once it reads again.
 */
export function recordingReader<R extends SourceReader>(reader: R): { reader: R; read: Map<string, RecordedRead> } {
  const read = new Map<string, RecordedRead>();
  const wrapped = Object.create(reader) as R;
  /** Reads through `reading` and records the hash of what it gave (`hashOf`; null: no list), or its failure. */
  const recorded = async <T>(
    [location, signal, options]: [string, AbortSignal?, ReadOptions?],
    reading: () => Promise<T>,
    hashOf: (value: NonNullable<T>) => string,
  ): Promise<T> => {
    const opts = options ? { options } : {};
    try {
      const value = await reading();
      if (value !== null) read.set(location, { hash: hashOf(value as NonNullable<T>), ...opts });
      return value;
    } catch (e) {
      // A read cut short because the compile ended is no outcome of the list's.
      if (!signal?.aborted) read.set(location, { hash: null, ...opts });
      throw e;
    }
  };
  wrapped.read = (...args) => recorded(args, () => reader.read(...args), sha256);
  wrapped.resolve = (ref, base) => reader.resolve(ref, base);
  // Bytes are recorded too (the hash of well-formed UTF-8 is the hash of its text), so a
  // reader that has them cannot slip a read past the record.
  if (reader.readBytes) {
    const readBytes = reader.readBytes.bind(reader);
    const hash = (given: ListBytes) => sha256(given.bytes.subarray(0, given.length));
    wrapped.readBytes = (...args) => recorded(args, () => readBytes(...args), hash);
  }
  return { reader: wrapped, read };
}

interface Entry<T> {
  inputs: Map<string, RecordedRead>;
  value: T;
  storedAt: number;
}

/** Bytes the compile cache may hold by default (`--compile-cache-max-bytes`). */
export const DEFAULT_COMPILE_CACHE_BYTES = 64 * 1024 * 1024;

/** An estimate of the memory a list of texts takes: their UTF-8 bytes and a pointer each. */
export function textBytes(texts: Iterable<string>): number {
  let bytes = 0;
  for (const text of texts) bytes += Buffer.byteLength(text) + 8;
  return bytes;
}

/**
 * Compile results by configuration, valid while every list the compile read (sources,
 * includes, exclusion lists) still has the same content; and the compiles in flight, so
 * identical concurrent requests share one. Bounded in bytes: the least recently used
 * results go first, and a result larger than the whole bound is not kept.
 */
export class CompileCache<T> {
  private readonly entries: LRUCache<string, Entry<T>>;
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(
    /** The estimated bytes of one value. */
    sizeOf: (value: T) => number,
    readonly maxBytes = DEFAULT_COMPILE_CACHE_BYTES,
    private readonly ttlMs = 60 * 60_000,
  ) {
    this.entries = new LRUCache<string, Entry<T>>({
      // A bound of 0 keeps nothing: every entry is larger than 1 byte.
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (entry, key) =>
        Math.max(1, sizeOf(entry.value) + key.length + textBytes(entry.inputs.keys()) + 64 * entry.inputs.size),
    });
  }

  /** The estimated bytes held now (never above `maxBytes`). */
  get bytes(): number {
    return this.entries.calculatedSize;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * A cached value whose inputs all still read the same, or null: each list that was read hashes
   * the same, each that failed still fails. Each input is read again as it was read (an include
   * held to its origin again).
   */
  async lookup(
    key: string,
    now: number,
    reread: (location: string, options?: ReadOptions) => Promise<string>,
  ): Promise<T | null> {
    const entry = this.entries.get(key);
    if (!entry || now - entry.storedAt > this.ttlMs) return null;
    for (const [location, { hash, options }] of entry.inputs) {
      let text: string;
      try {
        text = await reread(location, options);
      } catch {
        if (hash === null) continue;
        return null;
      }
      if (hash === null || sha256(text) !== hash) return null;
    }
    return entry.value;
  }

  store(key: string, inputs: Map<string, RecordedRead>, value: T, now: number): void {
    // An entry larger than the whole bound is refused (and any older value of the key dropped).
    this.entries.delete(key);
    this.entries.set(key, { inputs, value, storedAt: now });
  }

  /** Runs `work` unless the same key is already running; `shared` tells which happened. */
  async shared<V>(key: string, work: () => Promise<V>): Promise<{ value: V; shared: boolean }> {
    const running = this.inflight.get(key) as Promise<V> | undefined;
    if (running) return { value: await running, shared: true };
    const promise = work().finally(() => this.inflight.delete(key));
    this.inflight.set(key, promise);
    return { value: await promise, shared: false };
  }
}
