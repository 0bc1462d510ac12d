import type { SourceReader } from './source-reader.js';
import type { Lines } from '../transforms/lines.js';
import { packOrigin } from '../transforms/lines.js';
import { packBytes, packText, type ListData } from '../transforms/packed.js';
import { splitInKernel } from '../transforms/kernel.js';
import { splitText } from './split.js';
import { ConditionError, resolveConditions } from './conditions.js';
import { SourceRefusedError } from '../errors/source-refused-error.js';
import { DirectiveError } from '../errors/directive-error.js';

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

/** Drops `! Diff-Path:` lines near the top of an included list, as the reference does. */
function dropDiffPath(lines: Lines): void {
  for (let i = 0; i < Math.min(DIFF_PATH_SCAN, lines.text.length); i += 1) {
    if (lines.text[i].trim().startsWith(DIFF_PATH)) {
      lines.text.splice(i, 1);
      if (lines.from) lines.from = Float64Array.from([...lines.from.subarray(0, i), ...lines.from.subarray(i + 1)]);
    }
  }
}

async function load(location: string, ctx: LoadContext, chain: string[], read?: string): Promise<Lines> {
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
  let kept: number[];
  try {
    kept = resolveConditions(split.lines);
  } catch (e) {
    if (e instanceof ConditionError)
      throw new DirectiveError(location, split.numbers?.[e.index] ?? e.index + 1, e.message);
    throw e;
  }
  const out: string[] = [];
  const from: number[] = [];
  for (const index of kept) {
    const line = split.lines[index];
    const lineNo = split.numbers ? split.numbers[index] : index + 1;
    if (!line.startsWith(INCLUDE)) {
      out.push(line);
      if (ctx.tracked) from.push(packOrigin(fileId, lineNo));
      continue;
    }
    const included = await loadInclude(line.substring(INCLUDE.length).trim(), location, lineNo, ctx, chain);
    for (const t of included.text) out.push(t);
    if (ctx.tracked && included.from) for (const f of included.from) from.push(f);
  }
  return ctx.tracked ? { text: out, from: Float64Array.from(from) } : { text: out };
}

async function loadInclude(ref: string, parent: string, lineNo: number, ctx: LoadContext, chain: string[]) {
  const fail = (message: string, cause?: unknown) => new DirectiveError(parent, lineNo, message, { cause });
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
  let included: Lines;
  try {
    included = await load(child, ctx, [...chain, child]);
  } catch (e) {
    // A refused include is the request's fault (the server answers 422 naming it), not a broken list.
    if (e instanceof DirectiveError || e instanceof SourceRefusedError) throw e;
    throw fail(`failed to resolve !#include ${ref}: ${(e as Error).message}`, e);
  }
  dropDiffPath(included);
  return included;
}

/**
 * Reads one list with its `!#if` blocks and `!#include` directives resolved.
 * Directive problems throw DirectiveError; read failures reject as the reader does.
 */
export function loadList(location: string, ctx: LoadContext): Promise<Lines> {
  return load(location, ctx, [location]);
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** `loadList`, but a list without directives comes back packed (see transforms/packed.ts). */
export async function loadListPacked(location: string, ctx: LoadContext): Promise<ListData> {
  // Every directive starts a line with `!#` (conditions.ts, INCLUDE above), so a list with no
  // such line loads as it is split, and is packed; one with directives is loaded as strings.
  const given = ctx.reader.readBytes ? await ctx.reader.readBytes(location, ctx.signal) : null;
  // The file's id is `ctx.files.length` read right before its push, after the await: lists load
  // concurrently, and another may have taken the number meanwhile.
  if (given) {
    // Without line numbers to keep, a long list is split by the WebAssembly kernel.
    const split = ctx.tracked ? undefined : splitInKernel(given.bytes, given.length, true);
    const packed =
      split !== undefined
        ? split
        : packBytes(given.bytes, ctx.tracked ? ctx.files.length : undefined, given.length, true);
    if (packed) {
      ctx.files.push(location);
      return packed;
    }
  }
  const text = given ? utf8.decode(given.bytes.subarray(0, given.length)) : await ctx.reader.read(location, ctx.signal);
  const packed = packText(text, ctx.tracked ? ctx.files.length : undefined, true);
  if (packed) {
    ctx.files.push(location);
    return packed;
  }
  return load(location, ctx, [location], text);
}
