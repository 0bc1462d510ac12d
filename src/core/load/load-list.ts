import type { ReadOptions, SourceReader } from './source-reader.js';
import type { Lines } from '../transforms/lines.js';
import { keepWhere, packOrigin } from '../transforms/lines.js';
import { splitText } from './split.js';
import { ConditionError, conditionMask, type Directive, directivesOf } from './conditions.js';
import { SourceRefusedError, DirectiveError } from '../errors/index.js';

export const INCLUDE = '!#include';
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

const NETWORK_SCHEMES = new Set(['http:', 'https:', 'ftp:', 'ws:', 'wss:']);

/**
 * Where a resolved list location lives, for the same-origin rule of `!#include`: `local` for a
 * path or a `file:` URL, scheme, host and port for a network URL, the scheme alone for other
 * schemes (a server's saved rule sets), null for what is none of these.
 */
export function locationOrigin(location: string): string | null {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(location)?.[1].toLowerCase();
  // No scheme, or a drive letter: a path.
  if (!scheme || scheme.length === 1 || scheme === 'file') return 'local';
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return null;
  }
  return NETWORK_SCHEMES.has(url.protocol) ? url.origin : `${scheme}:`;
}

/** An included list (one with a list above it in `chain`) is read held to its origin, redirects included. */
export function includeOptions(location: string, chain: readonly string[]): ReadOptions | undefined {
  const origin = chain.length > 1 ? locationOrigin(location) : null;
  return origin ? { origin } : undefined;
}

/**
 * The keep flags that drop `! Diff-Path:` lines near the top of an included list of `count` lines,
 * or null when it has none, as the reference does: it removes them from the array it walks, so
 * the line after a removed one is not looked at, and the window of the first DIFF_PATH_SCAN lines
 * moves on by one for each removal.
 */
export function diffPathKeep(count: number, text: (i: number) => string): Uint8Array | null {
  let keep: Uint8Array | null = null;
  let removed = 0;
  for (let i = 0; i < Math.min(DIFF_PATH_SCAN, count - removed); i += 1) {
    const at = i + removed;
    if (!text(at).trim().startsWith(DIFF_PATH)) continue;
    keep ??= new Uint8Array(count).fill(1);
    keep[at] = 0;
    removed += 1;
  }
  return keep;
}

/** `conditionMask`, its errors as DirectiveError at the line's number in the file. */
export function resolved(location: string, count: number, directives: Directive[], lineNo: (i: number) => number) {
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
  const text = read ?? (await ctx.reader.read(location, ctx.signal, includeOptions(location, chain)));
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
    const loaded = await loadInclude(ref, location, () => lineOf(index), ctx, chain, loadList);
    const diffPath = diffPathKeep(loaded.text.length, (i) => loaded.text[i]);
    const included = diffPath ? keepWhere(loaded, diffPath) : loaded;
    for (const t of included.text) out.push(t);
    if (ctx.tracked && included.from) for (const f of included.from) from.push(f);
  }
  return ctx.tracked ? { text: out, from: Float64Array.from(from) } : { text: out };
}

/**
 * The list an `!#include` names, read by `loader` (the including list's), its `! Diff-Path:`
 * lines still in it (`diffPathKeep`); `lineNo` (the directive's line, for errors) is counted only
 * if one is thrown.
 */
export async function loadInclude<L>(
  ref: string,
  parent: string,
  lineNo: () => number,
  ctx: LoadContext,
  chain: string[],
  loader: (location: string, ctx: LoadContext, chain: string[]) => Promise<L>,
): Promise<L> {
  const fail = (message: string, cause?: unknown) => new DirectiveError(parent, lineNo(), message, { cause });
  if (!ref) throw fail('!#include without a location');
  // Resolved first, then compared: every spelling (`https:host`, `/\host`, `http:\\host`, `file:/x`)
  // is judged by where it really points. A remote list includes from its own scheme, host and port
  // only; a local one from local files only.
  const child = ctx.reader.resolve(ref, parent);
  const origin = locationOrigin(parent);
  if (origin === null || locationOrigin(child) !== origin) {
    // Refused, as a private address is: the request's fault on the server (422), not a broken list.
    const where = child === ref ? '' : ` (${child})`;
    const why = `!#include ${ref}${where} is rejected: it is not on the same origin as ${parent}`;
    throw new SourceRefusedError(child, `${parent}:${lineNo()}: ${why}`);
  }
  if (chain.includes(child)) throw fail(`!#include cycle: ${[...chain, child].join(' -> ')}`);
  if (chain.length >= MAX_INCLUDE_DEPTH) throw fail(`!#include nested deeper than ${MAX_INCLUDE_DEPTH} levels`);
  try {
    return await loader(child, ctx, [...chain, child]);
  } catch (e) {
    // A refused include is the request's fault (the server answers 422 naming it), not a broken list.
    if (e instanceof DirectiveError || e instanceof SourceRefusedError) throw e;
    throw fail(`failed to resolve !#include ${ref}: ${(e as Error).message}`, e);
  }
}
