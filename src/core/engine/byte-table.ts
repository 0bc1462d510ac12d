import { StringTable } from '../transforms/string-table.js';
import { widen } from './packed.js';

/**
 * StringTable's counterpart for packed lists: a set of byte ranges of one buffer,
 * with the same right-to-left hash, so a suffix's membership is known while scanning
 * a range backwards. Entries are ranges of the buffer passed to each call; a buffer
 * that grows by copying (PackedBuilder) keeps them valid.
 */
export class ByteTable {
  /**
   * Slot -> entry index + 1, or 0 for an empty slot. One 4-byte word per slot keeps the
   * table, whose slots are touched at random, at half the memory of (index, hash) pairs:
   * each fresh page costs the system a page fault, which on a million-line list weighs as
   * much as the probes. The hash is in the entry, next to its range.
   */
  private slots: Int32Array;
  private mask: number;
  /** Per entry, side by side: start, end and hash (one cache line for all three). */
  private entries: Int32Array;
  private count = 0;
  /**
   * With `lookups`, one bit per hash (8 per slot), set on add: most `has` lookups miss,
   * and this answers them from a bitmap a quarter of the table's size, which stays in
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
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.entries = new Int32Array((capacity / 2) * 3);
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
    const t = this.slots;
    let i = StringTable.home(h) & this.mask;
    for (let slot = t[i]; slot !== 0; slot = t[i]) {
      if (this.entries[3 * slot - 1] === h && this.equals(b, s, e, slot - 1)) return false;
      i = (i + 1) & this.mask;
    }
    const k = this.count;
    const entries = this.entries;
    entries[3 * k] = s;
    entries[3 * k + 1] = e;
    entries[3 * k + 2] = h;
    this.count = k + 1;
    t[i] = k + 1;
    const filter = this.filter;
    if (filter !== null) {
      // setFilterBit, written out: this runs once per entry.
      const bit = Math.imul(h, 0x9e3779b1) >>> this.filterShift;
      filter[bit >>> 5] |= 1 << (bit & 31);
    }
    if (3 * this.count === entries.length) this.grow();
    return true;
  }

  /** Doubles the capacity, keeping the table at most half full. */
  private grow(): void {
    const capacity = (this.mask + 1) * 2;
    const mask = capacity - 1;
    const slots = new Int32Array(capacity);
    const entries = widen(this.entries, new Int32Array((capacity / 2) * 3));
    if (this.lookups) this.resetFilter(capacity);
    for (let k = 0; k < this.count; k += 1) {
      const h = entries[3 * k + 2];
      let i = StringTable.home(h) & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = k + 1;
      if (this.lookups) this.setFilterBit(h);
    }
    this.slots = slots;
    this.mask = mask;
    this.entries = entries;
  }

  /** Whether `b[s, e)`, whose hash is `h`, is in the table. */
  has(b: Uint8Array, s: number, e: number, h: number): boolean {
    const filter = this.filter;
    if (filter === null) throw new Error('ByteTable: has() on a table made without lookups');
    const bit = Math.imul(h, 0x9e3779b1) >>> this.filterShift; // filterBit, written out
    if ((filter[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    const t = this.slots;
    let i = StringTable.home(h) & this.mask;
    for (let slot = t[i]; slot !== 0; slot = t[i]) {
      if (this.entries[3 * slot - 1] === h && this.equals(b, s, e, slot - 1)) return true;
      i = (i + 1) & this.mask;
    }
    return false;
  }

  private equals(b: Uint8Array, s: number, e: number, k: number): boolean {
    const ks = this.entries[3 * k];
    if (this.entries[3 * k + 1] - ks !== e - s) return false;
    for (let j = 0; j < e - s; j += 1) if (b[ks + j] !== b[s + j]) return false;
    return true;
  }
}
