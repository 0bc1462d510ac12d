import type { SourceReader } from './source-reader.js';
import type { Lines } from '../transforms/lines.js';
import { concatLines, keepWhere, packOrigin } from '../transforms/lines.js';
import {
  asLines,
  concatPacked,
  isPacked,
  keepWherePacked,
  lineText,
  packBytes,
  packText,
  slicePacked,
  type ListData,
  type PackedLines,
} from '../engine/packed.js';
import { splitText } from './split.js';
import { ConditionError, conditionMask, type Directive, directivesOf } from './conditions.js';
import { SourceRefusedError, DirectiveError } from '../errors/index.js';

const INCLUDE = '!#include';
const ABSOLUTE_URL_RE = /^([a-z]+:\/\/|\/\/)/i;
const DIFF_PATH = '! Diff-Path:';
const DIFF_PATH_SCAN = 50;
const MAX_INCLUDE_DEPTH = 20;

export interface LoadContext {
  reader: SourceReader;
  signal?: AbortSignal;
  /** Record provenance (file, line) for each line. */
  tracked: boolean;
  /** Every list location read so far; a line's provenance points into it. */
  files: string[];
}

function originOf(location: string): string | null {
  try {
    return new URL(location).origin;
  } catch {
    return null;
  }
}

/**
 * Drops `! Diff-Path:` lines near the top of an included list, as the reference does: it removes
 * them from the array it walks, so the line after a removed one is not looked at, and the window
 * of the first DIFF_PATH_SCAN lines moves on by one for each removal.
 */
function dropDiffPath(list: ListData): ListData {
  const n = isPacked(list) ? list.start.length : list.text.length;
  const text = (i: number) => (isPacked(list) ? lineText(list, i) : list.text[i]);
  let keep: Uint8Array | undefined;
  let removed = 0;
  for (let i = 0; i < Math.min(DIFF_PATH_SCAN, n - removed); i += 1) {
    const at = i + removed;
    if (!text(at).trim().startsWith(DIFF_PATH)) continue;
    keep ??= new Uint8Array(n).fill(1);
    keep[at] = 0;
    removed += 1;
  }
  if (!keep) return list;
  return isPacked(list) ? keepWherePacked(list, keep) : keepWhere(list, keep);
}

/** `conditionMask`, its errors as DirectiveError at the line's number in the file. */
function resolved(location: string, count: number, directives: Directive[], lineNo: (i: number) => number) {
  try {
    return conditionMask(count, directives);
  } catch (e) {
    if (e instanceof ConditionError) throw new DirectiveError(location, lineNo(e.index), e.message);
    throw e;
  }
}

/**
 * Reads one list with its `!#if` blocks and `!#include` directives resolved (`chain`: the lists
 * including it, itself last; `read`: its text, when read already). Directive problems throw
 * DirectiveError; read failures reject as the reader does.
 */
export async function loadList(location: string, ctx: LoadContext, chain = [location], read?: string): Promise<Lines> {
  const text = read ?? (await ctx.reader.read(location, ctx.signal));
  const split = splitText(text, ctx.tracked);
  const fileId = ctx.files.push(location) - 1;
  if (!text.includes('!#')) {
    // No directives at all: the split lines are the list.
    if (!ctx.tracked) return { text: split.lines };
    const from = new Float64Array(split.lines.length);
    for (let i = 0; i < from.length; i += 1) from[i] = packOrigin(fileId, split.numbers![i]);
    return { text: split.lines, from };
  }
  // Line numbers: kept with provenance; without, counted again only if one is needed (an error, an include).
  let numbers = split.numbers;
  const lineOf = (i: number) => {
    numbers ??= splitText(text, true).numbers!;
    return numbers[i];
  };
  const keep = resolved(location, split.lines.length, directivesOf(split.lines), lineOf);
  const out: string[] = [];
  const from: number[] = [];
  for (let index = 0; index < keep.length; index += 1) {
    if (keep[index] === 0) continue;
    const line = split.lines[index];
    if (!line.startsWith(INCLUDE)) {
      out.push(line);
      if (ctx.tracked) from.push(packOrigin(fileId, lineOf(index)));
      continue;
    }
    const ref = line.substring(INCLUDE.length).trim();
    const included = asLines(await loadInclude(ref, location, () => lineOf(index), ctx, chain, loadList));
    for (const t of included.text) out.push(t);
    if (ctx.tracked && included.from) for (const f of included.from) from.push(f);
  }
  return ctx.tracked ? { text: out, from: Float64Array.from(from) } : { text: out };
}

/**
 * The list an `!#include` names, read by `loader` (the including list's); `lineNo` (the directive's
 * line, for errors) is counted only if one is thrown.
 */
async function loadInclude(
  ref: string,
  parent: string,
  lineNo: () => number,
  ctx: LoadContext,
  chain: string[],
  loader: (location: string, ctx: LoadContext, chain: string[]) => Promise<ListData>,
) {
  const fail = (message: string, cause?: unknown) => new DirectiveError(parent, lineNo(), message, { cause });
  if (!ref) throw fail('!#include without a location');
  if (ABSOLUTE_URL_RE.test(ref)) {
    const parentOrigin = originOf(parent);
    if (parentOrigin === null || originOf(ref) !== parentOrigin) {
      throw fail(`!#include ${ref} is rejected: it is not on the same origin as ${parent}`);
    }
  }
  const child = ctx.reader.resolve(ref, parent);
  if (chain.includes(child)) throw fail(`!#include cycle: ${[...chain, child].join(' -> ')}`);
  if (chain.length >= MAX_INCLUDE_DEPTH) throw fail(`!#include nested deeper than ${MAX_INCLUDE_DEPTH} levels`);
  let included: ListData;
  try {
    included = await loader(child, ctx, [...chain, child]);
  } catch (e) {
    // A refused include is the request's fault (the server answers 422 naming it), not a broken list.
    if (e instanceof DirectiveError || e instanceof SourceRefusedError) throw e;
    throw fail(`failed to resolve !#include ${ref}: ${(e as Error).message}`, e);
  }
  return dropDiffPath(included);
}

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
    parts.push(await loadInclude(ref, location, () => lineNo(index), ctx, chain, loadListPacked));
    cut = index + 1;
  }
  const rest = keepWherePacked(slicePacked(list, cut, start.length), keep.subarray(cut));
  if (parts.length === 0) return rest;
  parts.push(rest);
  if (parts.every(isPacked)) return concatPacked(parts as PackedLines[]);
  return concatLines(parts.map(asLines), false);
}
