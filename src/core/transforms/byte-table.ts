import { StringTable } from './string-table.js';
import { widen } from './packed.js';

/**
 * StringTable's counterpart for packed lists: a set of byte ranges of one buffer,
 * with the same right-to-left hash, so a suffix's membership is known while scanning
 * a range backwards. Entries are ranges of the buffer passed to each call; a buffer
 * that grows by copying (PackedBuilder) keeps them valid.
 */
export class ByteTable {
  private table: Int32Array;
  private mask: number;
  private starts: Int32Array;
  private ends: Int32Array;
  private count = 0;
  /**
   * With `lookups`, one bit per hash (8 per slot), set on add: most `has` lookups miss,
   * and this answers them from a bitmap an eighth of the table's size, which stays in
   * cache. A table only added to (Deduplicate) goes without.
   */
  private filter: Int32Array | null = null;
  private filterShift = 0;

  /** Sized for `expected` entries; it grows past them. `lookups`: `has` will be called. */
  constructor(
    expected: number,
    private readonly lookups = false,
  ) {
    const capacity = StringTable.capacityFor(expected);
    this.table = new Int32Array(capacity * 2);
    this.mask = capacity - 1;
    this.starts = new Int32Array(capacity / 2);
    this.ends = new Int32Array(capacity / 2);
    if (lookups) this.resetFilter(capacity);
  }

  private resetFilter(capacity: number): void {
    this.filter = new Int32Array(capacity / 4);
    this.filterShift = 32 - Math.log2(capacity * 8);
  }

  private setFilterBit(h: number): void {
    const bit = this.filterBit(h);
    this.filter![bit >>> 5] |= 1 << (bit & 31);
  }

  private filterBit(h: number): number {
    return Math.imul(h, 0x9e3779b1) >>> this.filterShift;
  }

  static hash(b: Uint8Array, s: number, e: number): number {
    let h = StringTable.SEED;
    for (let i = e - 1; i >= s; i -= 1) h = Math.imul(h ^ b[i], 0x01000193);
    return h;
  }

  /** Adds `b[s, e)`; true when it was not there yet. */
  add(b: Uint8Array, s: number, e: number): boolean {
    return this.addHashed(b, s, e, ByteTable.hash(b, s, e));
  }

  /**
   * `add` with the hash already known. Hashing a batch first and adding in a tight loop
   * lets the processor overlap the table's cache misses, which a loop that hashes and
   * classifies between probes serialises.
   */
  addHashed(b: Uint8Array, s: number, e: number, h: number): boolean {
    const t = this.table;
    let i = StringTable.home(h) & this.mask;
    for (let slot = t[2 * i]; slot !== 0; slot = t[2 * i]) {
      if (t[2 * i + 1] === h && this.equals(b, s, e, slot - 1)) return false;
      i = (i + 1) & this.mask;
    }
    const k = this.count;
    this.starts[k] = s;
    this.ends[k] = e;
    this.count = k + 1;
    t[2 * i] = k + 1;
    t[2 * i + 1] = h;
    const filter = this.filter;
    if (filter !== null) {
      // setFilterBit, written out: this runs once per entry.
      const bit = Math.imul(h, 0x9e3779b1) >>> this.filterShift;
      filter[bit >>> 5] |= 1 << (bit & 31);
    }
    if (this.count === this.starts.length) this.grow();
    return true;
  }

  /** Doubles the capacity, keeping the table at most half full. */
  private grow(): void {
    const capacity = (this.mask + 1) * 2;
    this.table = StringTable.rehash(this.table, capacity);
    this.mask = capacity - 1;
    if (this.lookups) {
      this.resetFilter(capacity);
      for (let j = 1; j < this.table.length; j += 2) if (this.table[j - 1] !== 0) this.setFilterBit(this.table[j]);
    }
    this.starts = widen(this.starts, new Int32Array(capacity / 2));
    this.ends = widen(this.ends, new Int32Array(capacity / 2));
  }

  /** Whether `b[s, e)`, whose hash is `h`, is in the table. */
  has(b: Uint8Array, s: number, e: number, h: number): boolean {
    const filter = this.filter;
    if (filter === null) throw new Error('ByteTable: has() on a table made without lookups');
    const bit = Math.imul(h, 0x9e3779b1) >>> this.filterShift; // filterBit, written out
    if ((filter[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    const t = this.table;
    let i = StringTable.home(h) & this.mask;
    for (let slot = t[2 * i]; slot !== 0; slot = t[2 * i]) {
      if (t[2 * i + 1] === h && this.equals(b, s, e, slot - 1)) return true;
      i = (i + 1) & this.mask;
    }
    return false;
  }

  private equals(b: Uint8Array, s: number, e: number, k: number): boolean {
    const ks = this.starts[k];
    if (this.ends[k] - ks !== e - s) return false;
    for (let j = 0; j < e - s; j += 1) if (b[ks + j] !== b[s + j]) return false;
    return true;
  }
}
