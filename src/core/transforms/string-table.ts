/**
 * A string set built for millions of entries: open addressing over typed arrays,
 * keyed by a hash computed right to left. A lookup costs about one cache miss
 * (a JS Set costs three or so), and because the hash runs from the end, the hash of
 * every suffix of a string is known while scanning it, so "is this parent domain in
 * the set" needs no substring.
 */
export class StringTable {
  /** Pairs (item index + 1, hash) side by side: one cache line per probe. */
  private table: Int32Array;
  private mask: number;
  private readonly items: string[] = [];

  constructor(expected = 1024) {
    const capacity = StringTable.capacityFor(expected);
    this.table = new Int32Array(capacity * 2);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.items.length;
  }

  /** One step of the right-to-left hash: fold in the character before the current suffix. */
  static step(h: number, c: number): number {
    return Math.imul(h ^ c, 0x01000193);
  }

  static readonly SEED = 0x811c9dc5 | 0;

  static hash(s: string): number {
    let h = StringTable.SEED;
    for (let i = s.length - 1; i >= 0; i -= 1) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    return h;
  }

  /** `hash` of the UTF-8 bytes `b[s, e)`, equal to the string's for ASCII. */
  static hashBytes(b: Uint8Array, s: number, e: number): number {
    let h = StringTable.SEED;
    for (let i = e - 1; i >= s; i -= 1) h = Math.imul(h ^ b[i], 0x01000193);
    return h;
  }

  /** A hash's home slot before masking (mixes the high bits in). */
  static home(h: number): number {
    h ^= h >>> 16;
    h = Math.imul(h, 0x45d9f3b);
    return h ^ (h >>> 16);
  }

  /** Table capacity (a power of two) for `expected` entries at most half full. */
  static capacityFor(expected: number): number {
    let capacity = 1024;
    while (capacity < expected * 2) capacity *= 2;
    return capacity;
  }

  /** Adds `s`; true when it was not there yet. */
  add(s: string): boolean {
    const h = StringTable.hash(s);
    const t = this.table;
    let i = StringTable.home(h) & this.mask;
    for (let slot = t[2 * i]; slot !== 0; slot = t[2 * i]) {
      if (t[2 * i + 1] === h && this.items[slot - 1] === s) return false;
      i = (i + 1) & this.mask;
    }
    this.items.push(s);
    t[2 * i] = this.items.length;
    t[2 * i + 1] = h;
    if (this.items.length * 2 > this.mask + 1) this.grow();
    return true;
  }

  has(s: string): boolean {
    return this.hasSuffix(s, 0, StringTable.hash(s));
  }

  /** Whether `s.substring(from)` is in the table, given that suffix's hash. */
  hasSuffix(s: string, from: number, h: number): boolean {
    const length = s.length - from;
    const t = this.table;
    let i = StringTable.home(h) & this.mask;
    for (let slot = t[2 * i]; slot !== 0; slot = t[2 * i]) {
      if (t[2 * i + 1] === h) {
        const item = this.items[slot - 1];
        if (item.length === length && s.startsWith(item, from)) return true;
      }
      i = (i + 1) & this.mask;
    }
    return false;
  }

  private grow(): void {
    const capacity = (this.mask + 1) * 2;
    this.table = StringTable.rehash(this.table, capacity);
    this.mask = capacity - 1;
  }

  /** The (slot, hash) pairs of `table` placed in a new table of `capacity` slots. */
  static rehash(table: Int32Array, capacity: number): Int32Array {
    const next = new Int32Array(capacity * 2);
    const mask = capacity - 1;
    for (let j = 0; j < table.length; j += 2) {
      const slot = table[j];
      if (slot === 0) continue;
      let i = StringTable.home(table[j + 1]) & mask;
      while (next[2 * i] !== 0) i = (i + 1) & mask;
      next[2 * i] = slot;
      next[2 * i + 1] = table[j + 1];
    }
    return next;
  }
}
