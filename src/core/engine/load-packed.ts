/**
 * Loading into the packed engine's form: `loadList` (load/load-list.ts) with the list packed as
 * it is read, and its directives resolved on its bytes.
 */
import type { Directive } from '../load/conditions.js';
import type { ListBytes } from '../load/source-reader.js';
import { splitDirectives } from './kernel.js';
import {
  diffPathKeep,
  INCLUDE,
  includeOptions,
  loadInclude,
  loadList,
  type LoadContext,
  resolved,
} from '../load/load-list.js';
import { splitText } from '../load/split.js';
import { concatLines, keepWhere, packOrigin } from '../transforms/lines.js';
import {
  asLines,
  concatPacked,
  isPacked,
  keepWherePacked,
  lineText,
  type ListData,
  packBytes,
  packText,
  type PackedLines,
  slicePacked,
  withRanges,
} from './packed.js';

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The buffers lists were given by their readers, with the room after their bytes. */
const givenBuffers = new WeakSet<ArrayBufferLike>();

/**
 * A reader's bytes as a list may hold them: the room after them (see ListBytes) goes to the first
 * list given that buffer only. A buffer given again (standard input listed as two sources, a reader
 * that keeps what it read) is viewed without its room, so that no list writes where another's
 * rewrites are.
 */
function ownBytes({ bytes, length }: ListBytes): Uint8Array {
  if (!givenBuffers.has(bytes.buffer)) {
    givenBuffers.add(bytes.buffer);
    return bytes;
  }
  return bytes.subarray(0, length);
}

/**
 * `loadList`, but the list comes back packed (see engine/packed.ts) unless its text cannot be,
 * with each line's provenance where `ctx.tracked`.
 */
export async function loadListPacked(location: string, ctx: LoadContext, chain = [location]): Promise<ListData> {
  const options = includeOptions(location, chain);
  const given = ctx.reader.readBytes ? await ctx.reader.readBytes(location, ctx.signal, options) : null;
  let packed = given ? packBytes(ownBytes(given), given.length) : null;
  let text: string | undefined;
  if (!packed) {
    text = given
      ? utf8.decode(given.bytes.subarray(0, given.length))
      : await ctx.reader.read(location, ctx.signal, options);
    packed = packText(text);
  }
  if (!packed) return loadList(location, ctx, chain, text);
  const file = ctx.files.push(location) - 1;
  // Line numbers, for provenance or once one is needed (an error): on the bytes read, which the
  // lines' offsets count from, or on the text packed trimmed.
  let numbers: Int32Array | undefined;
  const lineNo = (i: number) => {
    numbers ??= text === undefined ? lineNumbers(packed!) : splitText(text, true).numbers!;
    return numbers[i];
  };
  const from = ctx.tracked ? Float64Array.from(packed.start, (_, i) => packOrigin(file, lineNo(i))) : undefined;
  return resolvePacked(withRanges(packed, packed.start, packed.end, from), location, ctx, chain, lineNo);
}

/** `splitText`'s line numbers of a list packed from bytes: the breaks before each line counted. */
function lineNumbers({ bytes, start, end }: PackedLines): Int32Array {
  const numbers = new Int32Array(start.length);
  let line = 1;
  for (let i = 0; i < start.length; i += 1) {
    // A CR is the last byte of a gap only before a line, which starts with no LF.
    for (let at = i === 0 ? 0 : end[i - 1]; at < start[i]; at += 1)
      if (bytes[at] === 10 || (bytes[at] === 13 && bytes[at + 1] !== 10)) line += 1;
    numbers[i] = line;
  }
  return numbers;
}

/**
 * A packed list's directives resolved on its bytes: the lines outside live condition blocks are
 * dropped in place, and each `!#include` line is replaced by the list it names. Only lines that
 * start with `!#` are decoded.
 */
async function resolvePacked(
  list: PackedLines,
  location: string,
  ctx: LoadContext,
  chain: string[],
  lineNo: (i: number) => number,
): Promise<ListData> {
  const { start } = list;
  const directives: Directive[] = [];
  for (const index of splitDirectives(list) ?? directiveLines(list))
    directives.push({ index, text: lineText(list, index) });
  if (directives.length === 0) return list;
  const keep = resolved(location, start.length, directives, lineNo);
  // The kept lines between live `!#include` lines, and in place of each the list it names.
  const parts: ListData[] = [];
  let cut = 0;
  for (const { index, text } of directives) {
    if (keep[index] === 0 || !text.startsWith(INCLUDE)) continue;
    parts.push(keepWherePacked(slicePacked(list, cut, index), keep.subarray(cut, index)));
    const ref = text.substring(INCLUDE.length).trim();
    const included = await loadInclude(ref, location, () => lineNo(index), ctx, chain, loadListPacked);
    parts.push(withoutDiffPath(included));
    cut = index + 1;
  }
  const rest = keepWherePacked(slicePacked(list, cut, start.length), keep.subarray(cut));
  if (parts.length === 0) return rest;
  parts.push(rest);
  if (parts.every(isPacked)) return concatPacked(parts as PackedLines[]);
  return concatLines(parts.map(asLines), ctx.tracked);
}

/**
 * The lines of a list that open with `!#` (directives), in order; the kernel's split notes them
 * as it splits (`splitDirectives`).
 */
export function directiveLines({ bytes, start, end }: PackedLines): number[] {
  const found: number[] = [];
  for (let i = 0; i < start.length; i += 1) {
    const s = start[i];
    if (end[i] - s >= 2 && bytes[s] === 33 && bytes[s + 1] === 35) found.push(i);
  }
  return found;
}

/** An included list without its `! Diff-Path:` lines (`diffPathKeep`). */
function withoutDiffPath(list: ListData): ListData {
  const count = isPacked(list) ? list.start.length : list.text.length;
  const keep = diffPathKeep(count, (i) => (isPacked(list) ? lineText(list, i) : list.text[i]));
  if (!keep) return list;
  return isPacked(list) ? keepWherePacked(list, keep) : keepWhere(list, keep);
}
