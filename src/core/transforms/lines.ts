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
  if (!tracked) return { text };
  const from = new Float64Array(text.length);
  let o = 0;
  for (const p of parts) {
    if (p.from) from.set(p.from, o);
    else from.fill(SYNTHETIC, o, o + p.text.length);
    o += p.text.length;
  }
  return { text, from };
}

/** Wraps texts that no source supplied. */
export function syntheticLines(text: string[], tracked: boolean): Lines {
  return tracked ? { text, from: new Float64Array(text.length).fill(SYNTHETIC) } : { text };
}

/**
 * The walk Validate and Deduplicate share: from the last line up, a line `problem`
 * names is dropped, and so are the comments and empty lines directly above a dropped
 * line (the reference drops them together). `problem` is called once per line, last
 * line first. Returns the keep flags; `removed` hears of each drop.
 */
export function dropFromEnd(
  n: number,
  problem: (i: number) => string | null,
  commentOrEmpty: (i: number) => boolean,
  removed: ((i: number, above: boolean, reason: string) => void) | null,
): Uint8Array {
  const keep = new Uint8Array(n).fill(1);
  let removing = false;
  for (let i = n - 1; i >= 0; i -= 1) {
    const reason = problem(i);
    if (reason !== null) {
      removing = true;
      keep[i] = 0;
      removed?.(i, false, reason);
    } else if (removing && commentOrEmpty(i)) {
      keep[i] = 0;
      removed?.(i, true, '');
    } else {
      removing = false;
    }
  }
  return keep;
}

/**
 * `dropFromEnd` over `lines` with `problem`, comments and empty lines being the lines above: a
 * dropped line is reported to `ctx` as `code` with its problem, a line above one as `above`.
 */
export function dropWithAbove(
  lines: Lines,
  ctx: TransformContext,
  problem: (i: number) => string | null,
  code: RemovalCode,
  above: [RemovalCode, string],
): Lines {
  const { text, from } = lines;
  const keep = dropFromEnd(
    text.length,
    problem,
    (i) => text[i].length === 0 || isComment(text[i]),
    ctx.reporting
      ? (i, isAbove, reason) => ctx.removed(text[i], from?.[i], isAbove ? above[0] : code, isAbove ? above[1] : reason)
      : null,
  );
  return keepWhere(lines, keep);
}
