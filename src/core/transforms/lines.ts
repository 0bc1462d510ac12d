import type { RemovalCode } from '../pipeline/diagnostics.js';
import { isComment } from '../rules/rule-text.js';
import type { TransformContext } from './types.js';

/**
 * The working list a compilation passes through its stages: the line texts and,
 * when a report is wanted, where each line came from. Provenance is packed into one
 * float per line (`file * 2^32 + line`) so a million lines cost 8 MB, not a million objects.
 */
export interface Lines {
  text: string[];
  from?: Float64Array;
}

const FILE_SHIFT = 4294967296;

/** Provenance of a line that no source supplied (headers, the final newline). */
export const SYNTHETIC = -1;

export function packOrigin(file: number, line: number): number {
  return file * FILE_SHIFT + line;
}

export function unpackOrigin(v: number): { file: number; line: number } | null {
  if (v < 0) return null;
  return { file: Math.floor(v / FILE_SHIFT), line: v % FILE_SHIFT };
}

/** Keeps the lines whose `keep` flag is set; one pass, no splicing. */
export function keepWhere(lines: Lines, keep: Uint8Array): Lines {
  const n = lines.text.length;
  let count = 0;
  for (let i = 0; i < n; i += 1) count += keep[i];
  if (count === n) return lines;
  const text = new Array<string>(count);
  const from = lines.from ? new Float64Array(count) : undefined;
  let j = 0;
  for (let i = 0; i < n; i += 1) {
    if (keep[i] === 1) {
      text[j] = lines.text[i];
      if (from) from[j] = lines.from![i];
      j += 1;
    }
  }
  return from ? { text, from } : { text };
}

/** Replaces the texts, keeping provenance (for one-to-one rewrites). */
export function withTexts(lines: Lines, text: string[]): Lines {
  return lines.from ? { text, from: lines.from } : { text };
}

/** Concatenates lists, keeping provenance when all of them carry it. */
export function concatLines(parts: Lines[], tracked: boolean): Lines {
  let total = 0;
  for (const p of parts) total += p.text.length;
  // Filled in place, not pushed: push costs half as much again and leaves the array room to spare.
  const text = new Array<string>(total);
  let k = 0;
  for (const p of parts) for (let i = 0; i < p.text.length; i += 1) text[k++] = p.text[i];
  return tracked ? { text, from: concatOrigins(parts.map((p) => [p.from, p.text.length])) } : { text };
}

/** The provenance of lists joined: each part's, or SYNTHETIC for a part without any (its lines counted). */
export function concatOrigins(parts: [Float64Array | undefined, number][]): Float64Array {
  const from = new Float64Array(parts.reduce((n, [, count]) => n + count, 0));
  let o = 0;
  for (const [part, count] of parts) {
    if (part) from.set(part, o);
    else from.fill(SYNTHETIC, o, o + count);
    o += count;
  }
  return from;
}

const isCommentOrEmpty = (line: string) => line.length === 0 || isComment(line);

/** Why a line was removed, as a report gives it: its code and reason. */
export type Drop = [RemovalCode, string];

/**
 * The walk Validate and Deduplicate share, on `n` lines (`text`, `from`): from the last line up, a
 * line `problem` names is dropped, and so are the comments and empty lines directly above a
 * dropped line (the reference drops them together). `problem` is called once per line, last line
 * first. Returns the keep flags; `ctx` hears of a dropped line as `code` with its problem, of a
 * line above one as `above`. `commentOrEmpty` may tell those lines without their text.
 */
export function dropWithAbove(
  n: number,
  text: (i: number) => string,
  from: Float64Array | undefined,
  ctx: TransformContext,
  problem: (i: number) => string | null,
  code: RemovalCode,
  above: Drop,
  commentOrEmpty = (i: number) => isCommentOrEmpty(text(i)),
): Uint8Array {
  const keep = new Uint8Array(n).fill(1);
  let removing = false;
  for (let i = n - 1; i >= 0; i -= 1) {
    const reason = problem(i);
    if (reason === null && !(removing && commentOrEmpty(i))) {
      removing = false;
      continue;
    }
    removing = true;
    keep[i] = 0;
    if (ctx.reporting) ctx.removed(text(i), from?.[i], ...(reason === null ? above : ([code, reason] as Drop)));
  }
  return keep;
}
