import type { SourceReader } from '../../src/core/load/source-reader.js';

/** A SourceReader over an in-memory map of location to text, for core tests. */
export function memoryReader(files: Record<string, string>): SourceReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    resolve(ref, base) {
      if (/^[a-z]+:\/\//i.test(ref)) return ref;
      if (base === null) return ref.startsWith('/') ? ref : `/${ref}`;
      if (/^[a-z]+:\/\//i.test(base)) return new URL(ref, base).href;
      return ref.startsWith('/') ? ref : base.substring(0, base.lastIndexOf('/') + 1) + ref;
    },
    async read(location) {
      reads.push(location);
      const text = files[location];
      if (text === undefined) throw new Error(`no such file: ${location}`);
      return text;
    },
  };
}
