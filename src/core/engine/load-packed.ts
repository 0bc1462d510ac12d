/**
 * Loading into the packed engine's form: `loadList` (load/load-list.ts) with the list packed as
 * it is read, and its directives resolved on its bytes.
 */
import type { Directive } from '../load/conditions.js';
import { diffPathKeep, INCLUDE, loadInclude, loadList, type LoadContext, resolved } from '../load/load-list.js';
import { splitText } from '../load/split.js';
import { concatLines, keepWhere } from '../transforms/lines.js';
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
} from './packed.js';

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * `loadList`, but the list comes back packed (see engine/packed.ts) unless its text cannot be.
 * Packed lists keep no provenance: a compile that keeps it loads with `loadList`.
 */
export async function loadListPacked(location: string, ctx: LoadContext, chain = [location]): Promise<ListData> {
  const given = ctx.reader.readBytes ? await ctx.reader.readBytes(location, ctx.signal) : null;
  let packed = given ? packBytes(given.bytes, given.length) : null;
  let text: string | undefined;
  if (!packed) {
    text = given ? utf8.decode(given.bytes.subarray(0, given.length)) : await ctx.reader.read(location, ctx.signal);
    packed = packText(text);
  }
  if (!packed) return loadList(location, ctx, chain, text);
  ctx.files.push(location);
  const source = () => text ?? utf8.decode(given!.bytes.subarray(0, given!.length));
  return resolvePacked(packed, location, ctx, chain, source);
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
  source: () => string,
): Promise<ListData> {
  const { bytes, start, end } = list;
  const directives: Directive[] = [];
  for (let i = 0; i < start.length; i += 1) {
    const s = start[i];
    if (end[i] - s >= 2 && bytes[s] === 33 && bytes[s + 1] === 35)
      directives.push({ index: i, text: lineText(list, i) });
  }
  if (directives.length === 0) return list;
  // Line numbers: counted on the source only if one is needed (an error).
  let numbers: Int32Array | undefined;
  const lineNo = (i: number) => {
    numbers ??= splitText(source(), true).numbers!;
    return numbers[i];
  };
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
  return concatLines(parts.map(asLines), false);
}

/** An included list without its `! Diff-Path:` lines (`diffPathKeep`). */
function withoutDiffPath(list: ListData): ListData {
  const count = isPacked(list) ? list.start.length : list.text.length;
  const keep = diffPathKeep(count, (i) => (isPacked(list) ? lineText(list, i) : list.text[i]));
  if (!keep) return list;
  return isPacked(list) ? keepWherePacked(list, keep) : keepWhere(list, keep);
}
