/**
 * The port through which the core reads lists. Node adapters implement it over
 * files and HTTP; the server wraps it with its safety checks; tests use memory.
 */
export interface SourceReader {
  /**
   * The location `ref` names, seen from `base`: the location of the including list,
   * or null for a location written in the configuration.
   */
  resolve(ref: string, base: string | null): string;
  /** The whole text at `location`. Rejects with a message that says why. */
  read(location: string, signal?: AbortSignal, options?: ReadOptions): Promise<string>;
  /**
   * Optional: the list at `location` as its bytes, when the reader has them without decoding (a
   * local file), or the UTF-8 bytes of the text `read` would give (a download); null otherwise,
   * and the list is then `read` as text. Rejects as `read` does, and reads as it does (`options`).
   * The bytes are well-formed UTF-8, and in a buffer of their own that the compile may keep, write
   * into, or move to another thread. A long list packs faster from its bytes.
   */
  readBytes?(location: string, signal?: AbortSignal, options?: ReadOptions): Promise<ListBytes | null>;
  /**
   * Optional: the last copy of `location` read well (a download in the HTTP cache) and when it was
   * last known good, for `onSourceError: stale`; null when there is none.
   */
  lastGood?(location: string): Promise<{ text: string; at: Date } | null>;
}

/** How one list is read. */
export interface ReadOptions {
  /**
   * The origin (scheme, host, port: `locationOrigin`) the list is held to, as an `!#include` is
   * to its including list's: every redirect hop must stay on it.
   */
  origin?: string;
}

/**
 * A list's bytes, handed over to the compile: `bytes[0, length)` is the list, and the rest of
 * `bytes` is room the compile may write into. Compress appends its `||name^` rewrites and the
 * list gets its headers there, so a reader that leaves room (the file reader leaves as much
 * again) spares a long list being copied into a larger buffer, twice. A reader may give one
 * buffer to more than one list (standard input listed twice): its room goes to the first only.
 */
export interface ListBytes {
  bytes: Uint8Array;
  length: number;
}
