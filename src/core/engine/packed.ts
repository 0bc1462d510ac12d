/**
 * A list held as byte ranges over one UTF-8 buffer instead of one string per line.
 *
 * A million-line DNS blocklist as `string[]` costs a million heap strings, each copied
 * by the garbage collector as it ages, and a pass over the text per transformation
 * that makes new ones. Packed, the list is the source bytes plus three typed arrays,
 * and the transformations that dominate such lists (trimming, comments, Compress,
 * Validate, Deduplicate) work on the bytes directly. A transformation without a
 * packed form gets the list unpacked to `Lines`, so the two forms always agree: the
 * packed code only takes the shapes it can decide on bytes and asks the string code
 * for every other line.
 */
import type { Lines } from '../transforms/lines.js';
import type { KernelMemory } from './kernel.js';
import { SYNTHETIC, packOrigin } from '../transforms/lines.js';
import { isWhitespaceCode } from '../rules/rule-text.js';
import { countBreaks } from '../load/split.js';

export interface PackedLines {
  /** Line bytes; line `i` is `bytes[start[i] .. end[i])`, without its line break. */
  readonly bytes: Uint8Array;
  /** Bytes of `bytes` in use; text appended by a rewrite goes after them. */
  readonly used: number;
  readonly start: Int32Array;
  readonly end: Int32Array;
  /** Provenance per line, as in `Lines.from`, when a report is wanted. */
  readonly from?: Float64Array;
  /**
   * True when no two lines are the same plain host rule (`plainHostRuleAt`'s shape,
   * `||[a-z0-9.-]+^`): Compress leaves its output so, and Deduplicate need not look such
   * lines up. Only filtering keeps it (`keepWherePacked`); a list made otherwise is false.
   */
  readonly distinctHostRules: boolean;
  /**
   * The WebAssembly kernel memory whose buffer holds `bytes` from offset 0, with its free region,
   * when the kernel made the list (Compress's output): Deduplicate, Validate and the join then
   * work there in place. Kept by what leaves the bytes where they are (`withRanges`).
   */
  readonly kernel?: KernelMemory;
}

/**
 * Every packed list is made here: one object shape from one place, so the code that reads lists
 * sees a single hidden class and is not deoptimised by lists built elsewhere.
 */
export function packedLines(
  bytes: Uint8Array,
  used: number,
  start: Int32Array,
  end: Int32Array,
  from?: Float64Array,
  distinctHostRules = false,
  kernel?: KernelMemory,
): PackedLines {
  return { bytes, used, start, end, from, distinctHostRules, kernel };
}

/** The same bytes (and kernel memory) with other line ranges. */
export function withRanges(
  list: PackedLines,
  start: Int32Array,
  end: Int32Array,
  from: Float64Array | undefined,
  distinctHostRules = false,
): PackedLines {
  return packedLines(list.bytes, list.used, start, end, from, distinctHostRules, list.kernel);
}

/** A working list in either form. */
export type ListData = Lines | PackedLines;

export function isPacked(list: ListData): list is PackedLines {
  return (list as PackedLines).bytes !== undefined;
}

export function lineCount(list: ListData): number {
  return isPacked(list) ? list.start.length : list.text.length;
}

const encoder = new TextEncoder();
// A BOM inside the list is a character of its line, as in the list read as text.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The text of bytes `[s, e)`: ASCII without the decoder's per-call cost. */
export function decodeRange(bytes: Uint8Array, s: number, e: number): string {
  if (e - s <= 64) {
    let ascii = true;
    for (let i = s; i < e; i += 1) {
      if (bytes[i] >= 128) {
        ascii = false;
        break;
      }
    }
    if (ascii) return String.fromCharCode.apply(null, bytes.subarray(s, e) as unknown as number[]);
  }
  return decoder.decode(bytes.subarray(s, e));
}

/** The text of line `i`. */
export function lineText(list: PackedLines, i: number): string {
  return decodeRange(list.bytes, list.start[i], list.end[i]);
}

const CR = 13;
const LF = 10;

/**
 * Packs list text split exactly as `splitText` splits it: the whole text trimmed, then
 * split on runs of CR/LF. Returns null for text that is not well-formed UTF-16 (a lone
 * surrogate would not survive encoding), which then stays in string form.
 * With `fileId`, each line's provenance is its 1-based line number in that file.
 */
export function packText(text: string, fileId?: number): PackedLines | null {
  if (!text.isWellFormed()) return null;
  const trimmed = text.trim();
  // Room after the bytes, for the text a rewrite appends: twice the units, as much again for
  // ASCII; pages of it left unwritten cost no memory. Text that does not fit (mostly characters
  // of three UTF-8 bytes) is encoded as it is, without room.
  let bytes = new Uint8Array(trimmed.length * 2 + 1024);
  const { read, written } = encoder.encodeInto(trimmed, bytes);
  let used = written;
  if (read < trimmed.length) {
    bytes = encoder.encode(trimmed);
    used = bytes.length;
  }
  const lead = fileId === undefined ? 0 : countBreaks(text, 0, text.length - text.trimStart().length);
  return splitPacked(bytes, used, 0, used, 1 + lead, fileId);
}

/**
 * `packText` of the list whose UTF-8 bytes are `bytes[0, length)` (well-formed: the reader
 * checked), without decoding them: the lines are ranges of `bytes` itself, and the bytes
 * after `length` are room for text appended later. Returns null when the list begins or
 * ends, after ASCII whitespace, with a non-ASCII character, which might be whitespace that
 * `trim()` removes; such a list is decoded and packed as text.
 */
export function packBytes(bytes: Uint8Array, fileId?: number, length = bytes.length): PackedLines | null {
  const range = trimmedRange(bytes, 0, length);
  if (range === null) return null;
  const [s, e] = range;
  let lineNo = 1;
  if (fileId !== undefined) {
    for (let i = 0; i < s; i += 1) if (bytes[i] === LF || (bytes[i] === CR && bytes[i + 1] !== LF)) lineNo += 1;
  }
  return splitPacked(bytes, length, s, e, lineNo, fileId);
}

/**
 * `bytes[from, to)` without the ASCII whitespace around it, or null when what remains begins or
 * ends with a non-ASCII byte, which might be whitespace that `trim()` removes (`packBytes`).
 */
export function trimmedRange(bytes: Uint8Array, from: number, to: number): [number, number] | null {
  let s = from;
  let e = to;
  while (s < e && bytes[s] < 128 && isWhitespaceCode(bytes[s])) s += 1;
  while (e > s && bytes[e - 1] < 128 && isWhitespaceCode(bytes[e - 1])) e -= 1;
  if (s < e && (bytes[s] >= 128 || bytes[e - 1] >= 128)) return null;
  return [s, e];
}

/**
 * Splits `bytes[from, to)` (trimmed) into lines on runs of CR/LF; the first line's number
 * is `lineNo`. The buffer's bytes outside the range stay, unused by any line; those from
 * `used` on are free.
 */
function splitPacked(
  bytes: Uint8Array,
  used: number,
  from: number,
  to: number,
  lineNo: number,
  fileId: number | undefined,
): PackedLines {
  let start = new Int32Array(Math.max(16, (to - from) >> 4));
  let end = new Int32Array(start.length);
  let origins = fileId === undefined ? undefined : new Float64Array(start.length);
  if (origins) origins[0] = packOrigin(fileId!, lineNo);
  start[0] = from;
  // Four bytes at a time where the buffer allows it (see below): words with no byte under 14
  // hold no line break and are passed over whole.
  const words =
    (bytes.byteOffset & 3) === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2) : null;
  // One pass: a run of breaks ends a line; each LF, CRLF or lone CR in it is one line number.
  let k = 0;
  for (let i = from; i < to; i += 1) {
    if (words !== null && (i & 3) === 0) {
      // Non-zero when, and only when, some byte of the word is below 14, i.e. at most CR
      // ("hasless" from Bit Twiddling Hacks; int32 arithmetic wraps as unsigned would).
      while (i + 4 <= to && ((words[i >> 2] - 0x0e0e0e0e) & ~words[i >> 2] & 0x80808080) === 0) i += 4;
      if (i >= to) break;
    }
    const c = bytes[i];
    if (c > CR || (c !== LF && c !== CR)) continue;
    end[k] = i;
    let j = i;
    for (; j < to && (bytes[j] === LF || bytes[j] === CR); j += 1) {
      if (bytes[j] === LF || bytes[j + 1] !== LF) lineNo += 1;
    }
    k += 1;
    if (k === start.length) {
      start = widen(start, new Int32Array(k * 2));
      end = widen(end, new Int32Array(k * 2));
      if (origins) origins = widen(origins, new Float64Array(k * 2));
    }
    start[k] = j;
    if (origins) origins[k] = packOrigin(fileId!, lineNo);
    i = j - 1;
  }
  end[k] = to;
  const count = k + 1;
  return packedLines(bytes, used, start.subarray(0, count), end.subarray(0, count), origins?.subarray(0, count));
}

/** `next` holding `a`'s values at its start (for growing typed arrays). */
export function widen<T extends Int32Array | Float64Array>(a: T, next: T): T {
  next.set(a);
  return next;
}

/** Packs lines given as strings (headers, synthetic lines); each must hold no line break. */
export function packStrings(texts: string[], from?: Float64Array): PackedLines {
  const parts = texts.map((t) => encoder.encode(t));
  let used = 0;
  for (const p of parts) used += p.length;
  const bytes = new Uint8Array(used);
  const start = new Int32Array(texts.length);
  const end = new Int32Array(texts.length);
  let o = 0;
  parts.forEach((p, i) => {
    bytes.set(p, o);
    start[i] = o;
    o += p.length;
    end[i] = o;
  });
  return packedLines(bytes, used, start, end, from);
}

/** The same list as strings. */
export function unpackLines(list: PackedLines): Lines {
  const n = list.start.length;
  const text = new Array<string>(n);
  // One decode of the joined lines, split again, is much cheaper than a decode per line.
  const joined = decoder.decode(joinPacked(list));
  const parts = joined.split('\n');
  if (parts.length === n) {
    for (let i = 0; i < n; i += 1) text[i] = parts[i];
  } else {
    for (let i = 0; i < n; i += 1) text[i] = lineText(list, i);
  }
  return list.from ? { text, from: list.from } : { text };
}

/** Lines joined with LF, as UTF-8: the list as written out. */
export function joinPacked(list: PackedLines): Uint8Array {
  const { bytes, start, end } = list;
  const n = start.length;
  let size = n > 0 ? n - 1 : 0;
  for (let i = 0; i < n; i += 1) size += end[i] - start[i];
  const out = new Uint8Array(size);
  let o = 0;
  let i = 0;
  while (i < n) {
    // Lines still next to each other in the buffer, one LF apart, are copied in one go.
    const s = start[i];
    let j = i;
    while (j + 1 < n && start[j + 1] === end[j] + 1 && bytes[end[j]] === LF) j += 1;
    const e = end[j];
    if (e - s > 32) {
      out.set(bytes.subarray(s, e), o);
      o += e - s;
    } else {
      for (let k = s; k < e; k += 1) out[o++] = bytes[k];
    }
    if (j + 1 < n) out[o++] = LF;
    i = j + 1;
  }
  return out;
}

/**
 * Keeps the lines whose `keep` flag (0 or 1) is set, moving them up in the list's own arrays:
 * the list passed in is consumed (see `PACKED_FORMS`). A new array per
 * transformation would cost a million-line list ~16 MB of fresh memory each time.
 */
export function keepWherePacked(list: PackedLines, keep: Uint8Array): PackedLines {
  const { start, end, from } = list;
  const n = start.length;
  let j = 0;
  while (j < n && keep[j] === 1) j += 1;
  if (j === n) return list;
  for (let i = j + 1; i < n; i += 1) {
    if (keep[i] === 1) {
      start[j] = start[i];
      end[j] = end[i];
      if (from) from[j] = from[i];
      j += 1;
    }
  }
  // Lines that were all different still are.
  return withRanges(list, start.subarray(0, j), end.subarray(0, j), from?.subarray(0, j), list.distinctHostRules);
}

/** Lines `[from, to)` of the list, as views of its arrays (nothing copied). */
export function slicePacked(list: PackedLines, from: number, to: number): PackedLines {
  const { start, end } = list;
  return withRanges(list, start.subarray(from, to), end.subarray(from, to), list.from?.subarray(from, to));
}

/**
 * Concatenates packed lists into one buffer; provenance is kept when `tracked`.
 *
 * Byte placement need not follow line order: the largest part's bytes go first, so its offsets
 * stay as they are (headers are the small parts). When its buffer has room after its used
 * bytes, as a rewritten list's has, the others are appended there and nothing large is copied.
 * Otherwise the new buffer gets room for half as much again, where a rewrite (Compress's
 * `||name^` lines) appends without copying it. Like PackedBuilder's appends, this takes the
 * room after `used`, which belongs to the one list that extends a buffer (pipelines are linear).
 */
export function concatPacked(parts: PackedLines[], tracked: boolean): PackedLines {
  let count = 0;
  for (const p of parts) count += p.start.length;
  const largest = parts.reduce((a, p) => (p.used > a.used ? p : a), parts[0]);
  // Each buffer once, however many parts view it (a list cut around its `!#include` lines).
  const placed = parts.length > 0 ? [...new Map([largest, ...parts].map((p) => [p.bytes, p])).values()] : [];
  let used = 0;
  for (const p of placed) used += p.used;
  const shift = new Map<Uint8Array, number>();
  const inPlace = parts.length > 0 && largest.bytes.length - largest.used >= used - largest.used;
  const bytes = inPlace ? largest.bytes : new Uint8Array(used + (used >> 1));
  let o = 0;
  for (const p of placed) {
    if (!(inPlace && p.bytes === largest.bytes)) bytes.set(p.bytes.subarray(0, p.used), o);
    shift.set(p.bytes, o);
    o += p.used;
  }
  const start = new Int32Array(count);
  const end = new Int32Array(count);
  const from = tracked ? new Float64Array(count) : undefined;
  let k = 0;
  for (const p of parts) {
    const by = shift.get(p.bytes)!;
    if (by === 0) {
      start.set(p.start, k);
      end.set(p.end, k);
    } else {
      for (let i = 0; i < p.start.length; i += 1) {
        start[k + i] = p.start[i] + by;
        end[k + i] = p.end[i] + by;
      }
    }
    if (from) {
      if (p.from) from.set(p.from, k);
      else from.fill(SYNTHETIC, k, k + p.start.length);
    }
    k += p.start.length;
  }
  return packedLines(bytes, used, start, end, from, false, inPlace ? largest.kernel : undefined);
}

/** `isComment` of line `i`, on its bytes. */
export function isCommentAt(list: PackedLines, i: number): boolean {
  const b = list.bytes;
  const s = list.start[i];
  const len = list.end[i] - s;
  if (len === 0) return false;
  const c = b[s];
  if (c === 33 /* ! */) return true;
  if (c !== 35 /* # */) return false;
  return len === 1 || b[s + 1] === 32 || (len >= 4 && b[s + 1] === 35 && b[s + 2] === 35 && b[s + 3] === 35);
}

/** Whether line `i` is empty or only whitespace (`trim()` semantics). */
export function isBlankAt(list: PackedLines, i: number): boolean {
  const b = list.bytes;
  const e = list.end[i];
  for (let j = list.start[i]; j < e; j += 1) {
    const c = b[j];
    if (c >= 128) return lineText(list, i).trim().length === 0;
    if (!isWhitespaceCode(c)) return false;
  }
  return true;
}

/** Rules in the list: lines that are neither blank nor comments. */
export function countPackedRules(list: PackedLines): number {
  let n = 0;
  for (let i = 0; i < list.start.length; i += 1) if (!isBlankAt(list, i) && !isCommentAt(list, i)) n += 1;
  return n;
}

/**
 * Collects the output of a transformation that rewrites lines: kept lines are ranges
 * over the input buffer, new text is appended after its used bytes (the buffer grows
 * by copying, so every range stays valid).
 */
export class PackedBuilder {
  bytes: Uint8Array;
  used: number;
  private start: Int32Array;
  private end: Int32Array;
  private from: Float64Array | undefined;
  private readonly input: PackedLines;
  count = 0;

  constructor(input: PackedLines, expectedLines: number) {
    this.input = input;
    this.bytes = input.bytes;
    this.used = input.used;
    this.start = new Int32Array(Math.max(expectedLines, 16));
    this.end = new Int32Array(this.start.length);
    this.from = input.from ? new Float64Array(this.start.length) : undefined;
  }

  /** Adds a line that is the range `[s, e)` of the buffer. */
  push(s: number, e: number, origin: number): void {
    if (this.count === this.start.length) this.growLines();
    this.start[this.count] = s;
    this.end[this.count] = e;
    if (this.from) this.from[this.count] = origin;
    this.count += 1;
  }

  /** Appends `prefix + bytes[s, e) + suffix` (ASCII prefix/suffix) and returns where the copy of `[s, e)` starts. */
  append(prefix: string, s: number, e: number, suffix: string): number {
    const size = prefix.length + (e - s) + suffix.length;
    if (this.used + size > this.bytes.length) this.growBytes(size);
    const b = this.bytes;
    let o = this.used;
    for (let j = 0; j < prefix.length; j += 1) b[o++] = prefix.charCodeAt(j);
    const at = o;
    b.copyWithin(o, s, e);
    o += e - s;
    for (let j = 0; j < suffix.length; j += 1) b[o++] = suffix.charCodeAt(j);
    this.used = o;
    return at;
  }

  /** Appends a string's UTF-8 bytes, returning their range start (the end is `used`). */
  appendText(text: string): number {
    const encoded = encoder.encode(text);
    if (this.used + encoded.length > this.bytes.length) this.growBytes(encoded.length);
    const at = this.used;
    this.bytes.set(encoded, at);
    this.used += encoded.length;
    return at;
  }

  /** The list built; it takes over the builder's arrays (views of them, not copies). */
  finish(): PackedLines {
    const n = this.count;
    return packedLines(
      this.bytes,
      this.used,
      this.start.subarray(0, n),
      this.end.subarray(0, n),
      this.from?.subarray(0, n),
      false,
      // Its bytes stay in the input's kernel memory unless appending outgrew them.
      this.bytes === this.input.bytes ? this.input.kernel : undefined,
    );
  }

  private growBytes(extra: number): void {
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.used + extra, 1024));
    next.set(this.bytes.subarray(0, this.used));
    this.bytes = next;
  }

  private growLines(): void {
    const size = this.start.length * 2;
    this.start = widen(this.start, new Int32Array(size));
    this.end = widen(this.end, new Int32Array(size));
    if (this.from) this.from = widen(this.from, new Float64Array(size));
  }
}
