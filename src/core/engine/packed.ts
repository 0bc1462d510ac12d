/**
 * A list held as byte ranges over one UTF-8 buffer instead of one string per line.
 *
 * A million-line DNS blocklist as `string[]` costs a million heap strings, each copied
 * by the garbage collector as it ages, and a pass over the text per transformation
 * that makes new ones. Packed, the list is the source bytes plus two typed arrays (split
 * into lines and joined again by the WebAssembly kernel, kernel.ts), and the
 * transformations that dominate such lists (trimming, comments, Compress, Validate,
 * Deduplicate) work on the bytes directly. A transformation without a packed form gets
 * the list unpacked to `Lines`, so the two forms always agree: the packed code only
 * takes the shapes it can decide on bytes and asks the string code for every other line.
 */
import { concatOrigins, type Lines } from '../transforms/lines.js';
import { joinInKernel, kernelSelect, splitInKernel } from './kernel.js';
import { isWhitespaceCode } from '../rules/rule-text.js';
import type { LineSet } from './engine.js';
import { ASCII_BLOCK_BITS, SELECTED } from './kernel-constants.js';

export interface PackedLines {
  /** Line bytes; line `i` is `bytes[start[i] .. end[i])`, without its line break. */
  readonly bytes: Uint8Array;
  /** Bytes of `bytes` in use; text appended by a rewrite goes after them. */
  readonly used: number;
  readonly start: Int32Array;
  readonly end: Int32Array;
  /** Where each line came from (`Lines.from`), when the compile keeps provenance. */
  readonly from?: Float64Array;
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
): PackedLines {
  return { bytes, used, start, end, from };
}

/** The same bytes and provenance with other line ranges. */
export function withRanges(list: PackedLines, start: Int32Array, end: Int32Array, from = list.from): PackedLines {
  return packedLines(list.bytes, list.used, start, end, from);
}

/** A working list in either form. */
export type ListData = Lines | PackedLines;

export function isPacked(list: ListData): list is PackedLines {
  return (list as PackedLines).bytes !== undefined;
}

const encoder = new TextEncoder();
// A BOM inside the list is a character of its line, as in the list read as text.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The text of bytes `[s, e)`. */
export function decodeRange(bytes: Uint8Array, s: number, e: number): string {
  return decoder.decode(bytes.subarray(s, e));
}

/** The text of line `i`. */
export function lineText(list: PackedLines, i: number): string {
  return decodeRange(list.bytes, list.start[i], list.end[i]);
}

/** Bytes per block of `asciiRuns`' table: 2^BLOCK_BITS. */
const BLOCK_BITS = ASCII_BLOCK_BITS;

/**
 * The most blocks in a run (`asciiRuns`): a run is decoded whole when a line in it is read, and
 * most lines of many lists are read by no filter (a long stretch of cosmetic rules).
 */
const RUN_BLOCKS = 16;

/** `asciiRuns` of the lists read so far, by their bytes: the filters read a list twice. */
const runsOf = new WeakMap<Uint8Array, { used: number; run: Int32Array }>();

/** Blocks in the table of `bytes[0, used)`: the last may be short or empty. */
export const asciiBlockCount = (used: number) => (used >>> BLOCK_BITS) + 1;

/** The table of `asciiRuns`, given which blocks hold a byte above 0x7f. */
function runTable(blocks: number, high: (b: number) => boolean): Int32Array {
  const run = new Int32Array(blocks);
  for (let b = 0; b < blocks; b += 1) {
    const first = b > 0 ? run[b - 1] : -1;
    run[b] = high(b) ? -1 : first >= 0 && b - first < RUN_BLOCKS ? first : b;
  }
  return run;
}

/**
 * Notes the table of `asciiRuns` for `bytes[0, used)` from `high` (1 for a block holding a byte
 * above 0x7f), as the kernel's split finds it (kernel.ts, `splitInKernel`).
 */
export function noteAsciiBlocks(bytes: Uint8Array, used: number, high: Uint8Array): void {
  runsOf.set(bytes, { used, run: runTable(high.length, (b) => high[b] === 1) });
}

/**
 * Per block of BLOCK_BITS bytes of `bytes[0, used)`: the first block of its run of blocks of ASCII
 * bytes, or -1 when it holds another byte. As the split noted it (`noteAsciiBlocks`), or found
 * here four bytes at a time where the bytes sit on a 4-byte boundary (as the lists read and joined
 * do). The bytes below `used` never change (steps write after them), so the table of a list serves
 * every list on its bytes.
 */
function asciiRuns(bytes: Uint8Array, used: number): Int32Array {
  const known = runsOf.get(bytes);
  if (known !== undefined && known.used === used) return known.run;
  const words = bytes.byteOffset % 4 === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset, used >>> 2) : null;
  const run = runTable(asciiBlockCount(used), (b) => {
    let high = 0;
    let j = b << BLOCK_BITS;
    const stop = Math.min(used, (b + 1) << BLOCK_BITS);
    if (words !== null) {
      for (let w = j >>> 2, last = stop >>> 2; w < last; w += 1) high |= words[w];
      j = stop & ~3;
    }
    for (; j < stop; j += 1) high |= bytes[j];
    return (high & 0x80808080) !== 0;
  });
  runsOf.set(bytes, { used, run });
  return run;
}

/**
 * The text of a run of ASCII blocks (`asciiRuns`) by its first block, for a pass over the lines:
 * decoded when a line in it is read (once for lines read in byte order, at most twice otherwise).
 * Decoding a line at a time costs more than finding the ASCII blocks, and ASCII decodes to one-byte
 * strings.
 */
function runTexts(bytes: Uint8Array, used: number, run: Int32Array): (first: number) => string {
  const blocks = run.length;
  // A run's text is kept once it is decoded a second time (a list not in byte order), else only
  // while its lines are read: texts kept for the whole pass (a list's size) would be copied by
  // every collection of the young generation, and moved to the old one.
  const decoded = new Uint8Array(blocks);
  const texts = new Map<number, string>();
  // The run the last line read was in (lines mostly come in byte order).
  let last = -1;
  let lastText = '';
  return (first) => {
    if (first === last) return lastText;
    let text = texts.get(first);
    if (text === undefined) {
      let to = first;
      while (to < blocks && run[to] === first) to += 1;
      text = decodeRange(bytes, first << BLOCK_BITS, Math.min(used, to << BLOCK_BITS));
      if (decoded[first] === 1) texts.set(first, text);
      decoded[first] = 1;
    }
    last = first;
    lastText = text;
    return text;
  };
}

/**
 * `lineText` for a pass over every line (the filters with a report): a line within a run of ASCII
 * blocks is a slice of the run's text (`runTexts`); another is decoded alone.
 */
export function lineReader(list: PackedLines): (i: number) => string {
  const { bytes, used, start, end } = list;
  const run = asciiRuns(bytes, used);
  const runText = runTexts(bytes, used, run);
  return (i) => {
    const s = start[i];
    const e = end[i];
    if (s === e) return '';
    const first = run[s >>> BLOCK_BITS];
    if (first < 0 || run[(e - 1) >>> BLOCK_BITS] !== first) return lineText(list, i);
    const from = first << BLOCK_BITS;
    return runText(first).slice(s - from, e - from);
  };
}

const isBreak = (byte: number) => byte === 10 || byte === 13;

/**
 * Lines from which the filters' pass makes a set's automaton (`LineSet.byteAutomaton`), which it
 * then runs on every list: making one costs ~10-30 ms in a new process (a few ms warm), what
 * V8's regexes take for tens of thousands of lines there.
 */
const AUTOMATON_LINES = 50_000;

/**
 * `Engine.select` of a packed list. A line within a run of ASCII blocks (`asciiRuns`) holds no
 * line terminator, unread: opening with what no pattern opens with, it matches none, unread; else
 * it is asked of the set where it stands in its run's text (`runTexts`) when it sits between line
 * breaks and the set can (`LineSet.hasAt`), or as a slice of that text. Another line is decoded alone,
 * and is known to hold no line terminator when it opens with ASCII and holds no byte 0xE2, which
 * begins U+2028 and U+2029 (a packed line holds no CR or LF).
 */
export function selectPacked(
  list: PackedLines,
  set: LineSet,
  exclude: boolean,
  automatonLines = AUTOMATON_LINES,
): Uint8Array {
  const { bytes, used, start, end } = list;
  const keep = new Uint8Array(start.length);
  // The lines the set's automaton reads, answered by the kernel; the few others (empty, or with a
  // byte past 0x7f) asked of the set alone.
  const automaton = set.byteAutomaton(start.length >= automatonLines);
  const read = automaton === null ? null : kernelSelect(list, automaton);
  if (read !== null) {
    for (let i = 0; i < keep.length; i += 1) {
      const answer = read[i];
      const hit = answer === SELECTED.SELECTED_UNREAD ? set.has(lineText(list, i)) : answer === SELECTED.SELECTED_YES;
      if (hit !== exclude) keep[i] = 1;
    }
    return keep;
  }
  const run = asciiRuns(bytes, used);
  const runText = runTexts(bytes, used, run);
  const { openings, hasAt } = set;
  for (let i = 0; i < keep.length; i += 1) {
    const s = start[i];
    const e = end[i];
    const first = s === e ? -1 : run[s >>> BLOCK_BITS];
    let hit: boolean;
    if (first >= 0 && run[(e - 1) >>> BLOCK_BITS] === first) {
      if (openings !== null && openings[bytes[s]] === 0) hit = false;
      else {
        const at = s - (first << BLOCK_BITS);
        const alone = hasAt === null || !(s === 0 || isBreak(bytes[s - 1])) || !(e === used || isBreak(bytes[e]));
        hit = alone ? set.has(runText(first).slice(at, at + e - s), true) : hasAt(runText(first), at);
      }
    } else {
      let unbroken = s < e && bytes[s] < 128;
      for (let j = s + 1; unbroken && j < e; j += 1) if (bytes[j] === 0xe2) unbroken = false;
      hit = unbroken && openings !== null && openings[bytes[s]] === 0 ? false : set.has(lineText(list, i), unbroken);
    }
    if (hit !== exclude) keep[i] = 1;
  }
  return keep;
}

/**
 * Packs list text split exactly as `splitText` splits it: the whole text trimmed, then split on
 * runs of CR/LF (`splitInKernel`). Returns null for text that is not well-formed UTF-16 (a lone
 * surrogate would not survive encoding), which then stays in string form, and where the kernel
 * has no memory for it.
 */
export function packText(text: string): PackedLines | null {
  if (!text.isWellFormed()) return null;
  const bytes = encoder.encode(text.trim());
  return splitInKernel(bytes, bytes.length, 0, bytes.length);
}

/**
 * `packText` of the list whose UTF-8 bytes are `bytes[0, length)` (well-formed: the reader
 * checked), without decoding them; the bytes after `length` are room for text appended later.
 * Returns null when the list begins or ends, after ASCII whitespace, with a non-ASCII character,
 * which might be whitespace that `trim()` removes (such a list is decoded and packed as text), and
 * where the kernel has no memory for it.
 */
export function packBytes(bytes: Uint8Array, length = bytes.length): PackedLines | null {
  let s = 0;
  let e = length;
  while (s < e && bytes[s] < 128 && isWhitespaceCode(bytes[s])) s += 1;
  while (e > s && bytes[e - 1] < 128 && isWhitespaceCode(bytes[e - 1])) e -= 1;
  if (s < e && (bytes[s] >= 128 || bytes[e - 1] >= 128)) return null;
  return splitInKernel(bytes, length, s, e);
}

/** Packs lines given as strings (headers, synthetic lines: no provenance); none may hold a line break. */
export function packStrings(texts: string[]): PackedLines {
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
  return packedLines(bytes, used, start, end);
}

/** A list in either form as strings. */
export const asLines = (list: ListData): Lines => (isPacked(list) ? unpackLines(list) : list);

/** The same list as strings. */
export function unpackLines(list: PackedLines): Lines {
  // One decode of the joined lines, split again, is much cheaper than a decode per line; a line
  // holding a break (a header's) makes the parts too many.
  const joined = joinInKernel(list);
  const parts = joined === null ? [] : decoder.decode(joined).split('\n');
  const text = parts.length === list.start.length ? parts : Array.from(list.start, (_, i) => lineText(list, i));
  return list.from ? { text, from: list.from } : { text };
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
  return withRanges(list, start.subarray(0, j), end.subarray(0, j), from?.subarray(0, j));
}

/** Lines `[i, to)` of the list, as views of its arrays (nothing copied). */
export function slicePacked(list: PackedLines, i: number, to: number): PackedLines {
  const { start, end, from } = list;
  return withRanges(list, start.subarray(i, to), end.subarray(i, to), from?.subarray(i, to));
}

/**
 * Bytes between two lines, in the list's bytes, that a gathered copy (`copyPlan`) still copies
 * rather than start another piece: a copy call costs about as much as copying that many bytes.
 */
const GAP = 256;

/**
 * The pieces of a gathered copy, in line order: lines `[i, j)` and the bytes `[from, to)` of the
 * list that hold them. A line joins the piece before it when it starts at most GAP bytes after
 * that piece's end, else it begins a new one.
 */
export function pieces(
  { start, end }: PackedLines,
  visit: (i: number, j: number, from: number, to: number) => void,
): void {
  const n = start.length;
  let i = 0;
  while (i < n) {
    const from = start[i];
    let to = end[i];
    let j = i + 1;
    while (j < n && start[j] >= to && start[j] - to <= GAP) {
      if (end[j] > to) to = end[j];
      j += 1;
    }
    visit(i, j, from, to);
    i = j;
  }
}

/** Copies `source[from, to)` to `target` at `at`: a short run byte by byte, cheaper than a view and a call. */
export function copyBytes(source: Uint8Array, from: number, to: number, target: Uint8Array, at: number): void {
  if (to - from > 64) target.set(source.subarray(from, to), at);
  else for (let j = from; j < to; j += 1) target[at + j - from] = source[j];
}

/**
 * How a list's bytes are copied into another buffer (a kernel memory: `copyList`; a list joined:
 * `concatPacked`): `size` bytes. A list whose lines leave most of its bytes out (a filter or a
 * step dropped most lines, and its lines still view the bytes read) has only its lines copied, a
 * run of nearby lines at a time (`gathered`: `pieces`); else its used bytes are copied whole.
 */
export interface CopyPlan {
  readonly size: number;
  readonly gathered: boolean;
}

export function copyPlan(lines: PackedLines): CopyPlan {
  const { start, end, used } = lines;
  // The lines' own bytes first: a list whose lines fill half its bytes is copied whole, unsplit.
  let size = 0;
  for (let i = 0; i < start.length; i += 1) size += end[i] - start[i];
  if (size * 2 >= used) return { size: used, gathered: false };
  size = 0;
  pieces(lines, (_i, _j, from, to) => {
    size += to - from;
  });
  return size * 2 < lines.used ? { size, gathered: true } : { size: lines.used, gathered: false };
}

/**
 * Concatenates packed lists into one buffer.
 *
 * Byte placement need not follow line order: the largest part's bytes go first, so its offsets
 * stay as they are (headers are the small parts). When its buffer has room after its used
 * bytes, as a rewritten list's has, the others are appended there and nothing large is copied.
 * Otherwise the new buffer gets room for half as much again, where later lines (rewritten ones,
 * `rewriteSome` in line-steps.ts) are appended without copying it; a part whose lines view less
 * than half its bytes (the sources after the list's filters: `copyPlan`) gives only its lines.
 * This takes the room after `used`, which belongs to the one list that extends a buffer
 * (pipelines are linear).
 */
export function concatPacked(parts: PackedLines[]): PackedLines {
  let count = 0;
  for (const p of parts) count += p.start.length;
  const largest = parts.reduce((a, p) => (p.used > a.used ? p : a), parts[0]);
  // Each buffer once, however many parts view it (a list cut around its `!#include` lines).
  const placed = parts.length > 0 ? [...new Map([largest, ...parts].map((p) => [p.bytes, p])).values()] : [];
  let used = 0;
  for (const p of placed) used += p.used;
  const shift = new Map<Uint8Array, number>();
  const inPlace = parts.length > 0 && largest.bytes.length - largest.used >= used - largest.used;
  if (!inPlace && placed.length === parts.length) {
    // Parts a filter left viewing few of their bytes (the sources of a list) give only their lines.
    const plans = parts.map(copyPlan);
    if (plans.some((p) => p.gathered)) return gatherPacked(parts, plans);
  }
  const bytes = inPlace ? largest.bytes : new Uint8Array(used + (used >> 1));
  let o = 0;
  for (const p of placed) {
    if (!(inPlace && p.bytes === largest.bytes)) bytes.set(p.bytes.subarray(0, p.used), o);
    shift.set(p.bytes, o);
    o += p.used;
  }
  const start = new Int32Array(count);
  const end = new Int32Array(count);
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
    k += p.start.length;
  }
  const from = parts.some((p) => p.from) ? concatOrigins(parts.map((p) => [p.from, p.start.length])) : undefined;
  return packedLines(bytes, used, start, end, from);
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

/**
 * Rules in the list: lines neither blank nor comments. A line whose first byte is printable ASCII
 * is not blank; any other is decoded for `trim()`.
 */
export function countPackedRules(list: PackedLines): number {
  const { bytes, start, end } = list;
  let n = 0;
  for (let i = 0; i < start.length; i += 1) {
    const c = start[i] < end[i] ? bytes[start[i]] : 0;
    if (c > 32 && c < 127 ? !isCommentAt(list, i) : lineText(list, i).trim().length > 0) n += 1;
  }
  return n;
}

/**
 * `concatPacked` of parts of which some view few of their bytes (`copyPlan`), none sharing a
 * buffer, and none with room for the rest: each part's lines copied, gathered or whole, one part
 * after another, into a buffer with room for half as much again.
 */
function gatherPacked(parts: PackedLines[], plans: CopyPlan[]): PackedLines {
  let count = 0;
  let used = 0;
  parts.forEach((p, i) => {
    count += p.start.length;
    used += plans[i].size;
  });
  const bytes = new Uint8Array(used + (used >> 1));
  const start = new Int32Array(count);
  const end = new Int32Array(count);
  let o = 0;
  let k = 0;
  parts.forEach((p, i) => {
    const copy = (a: number, b: number, from: number, to: number) => {
      copyBytes(p.bytes, from, to, bytes, o);
      const shift = o - from;
      for (let j = a; j < b; j += 1) {
        start[k + j] = p.start[j] + shift;
        end[k + j] = p.end[j] + shift;
      }
      o += to - from;
    };
    if (plans[i].gathered) pieces(p, copy);
    else copy(0, p.start.length, 0, p.used);
    k += p.start.length;
  });
  const from = parts.some((p) => p.from) ? concatOrigins(parts.map((p) => [p.from, p.start.length])) : undefined;
  return packedLines(bytes, used, start, end, from);
}
