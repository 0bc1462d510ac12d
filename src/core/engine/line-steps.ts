/** Packed forms of the line-by-line steps: trimming, comments, blank lines, final newline, punycode, options. */
import { toAscii } from '../transforms/convert-to-ascii.js';
import { removeModifiersFrom } from '../transforms/remove-modifiers.js';
import { isWhitespaceCode } from '../rules/rule-text.js';
import type { TransformContext } from '../transforms/types.js';
import {
  concatPacked,
  isCommentAt,
  keepWherePacked,
  lineText,
  packStrings,
  type PackedLines,
  withRanges,
} from './packed.js';

export function trimLinesPacked(lines: PackedLines): PackedLines {
  // In place: the list passed in is this transformation's (see PACKED_FORMS in packed-engine.ts).
  const { bytes: b, start, end } = lines;
  for (let i = 0; i < start.length; i += 1) {
    let s = start[i];
    let e = end[i];
    while (s < e && (b[s] === 32 || b[s] === 9)) s += 1;
    while (e > s && (b[e - 1] === 32 || b[e - 1] === 9)) e -= 1;
    start[i] = s;
    end[i] = e;
  }
  return lines;
}

export function removeCommentsPacked(lines: PackedLines, ctx: TransformContext): PackedLines {
  const { bytes, start, end } = lines;
  const keep = new Uint8Array(start.length);
  for (let i = 0; i < keep.length; i += 1) {
    // Only a line that starts with `!` or `#` can be a comment: the rest are kept without a call.
    const c = start[i] < end[i] ? bytes[start[i]] : 0;
    if ((c !== 33 && c !== 35) || !isCommentAt(lines, i)) keep[i] = 1;
    else if (ctx.reporting) ctx.removed(lineText(lines, i), lines.from?.[i], 'comment', 'comment line');
  }
  return keepWherePacked(lines, keep);
}

export function removeEmptyLinesPacked(lines: PackedLines, ctx: TransformContext): PackedLines {
  const { bytes, start, end } = lines;
  const keep = new Uint8Array(start.length);
  for (let i = 0; i < keep.length; i += 1) {
    // A line whose first byte is printable ASCII is not blank: kept undecoded. This loop
    // and RemoveComments' are written out, not shared: one helper called with both predicates
    // lost the gain (V8 stops inlining the predicate once it has seen two).
    const c = start[i] < end[i] ? bytes[start[i]] : 0;
    if ((c > 32 && c < 127) || lineText(lines, i).trim().length > 0) keep[i] = 1;
    else if (ctx.reporting) ctx.removed(lineText(lines, i), lines.from?.[i], 'empty-line', 'empty line');
  }
  return keepWherePacked(lines, keep);
}

export function insertFinalNewLinePacked(lines: PackedLines): PackedLines {
  const n = lines.start.length;
  if (n > 0 && lineText(lines, n - 1).trim() === '') return lines;
  // An empty line has no bytes: only the line ranges are copied.
  return concatPacked([lines, packStrings([''])]);
}

/**
 * A one-to-one rewrite on a packed list: only the lines `mayChange` picks (on their bytes) are
 * decoded and given to `rewrite`; the lines it changes are appended (`concatPacked`) and take the
 * appended ranges, every other keeps its bytes.
 */
export function rewriteSome(
  lines: PackedLines,
  mayChange: (b: Uint8Array, s: number, e: number) => boolean,
  rewrite: (line: string) => string,
): PackedLines {
  const { bytes, start, end } = lines;
  const n = start.length;
  const changed: string[] = [];
  const at: number[] = [];
  for (let i = 0; i < n; i += 1) {
    if (!mayChange(bytes, start[i], end[i])) continue;
    const text = lineText(lines, i);
    const out = rewrite(text);
    if (out !== text) {
      changed.push(out);
      at.push(i);
    }
  }
  if (changed.length === 0) return lines;
  const out = concatPacked([lines, packStrings(changed)]);
  at.forEach((i, k) => {
    out.start[i] = out.start[n + k];
    out.end[i] = out.end[n + k];
  });
  return withRanges(out, out.start.subarray(0, n), out.end.subarray(0, n), lines.from);
}

/** ConvertToAscii: only a line with a non-ASCII byte can change. */
export function convertToAsciiPacked(lines: PackedLines): PackedLines {
  return rewriteSome(lines, (b, s, e) => hasByte(b, s, e, (c) => c >= 128), toAscii);
}

/**
 * RemoveModifiers: only a line with a `$` (its options) or with what `trim()` may remove at an
 * end can change; without either, the reference's parse and re-serialisation give it back as is.
 */
export function removeModifiersPacked(lines: PackedLines): PackedLines {
  const edge = (c: number) => c >= 128 || isWhitespaceCode(c);
  return rewriteSome(
    lines,
    (b, s, e) => s < e && (edge(b[s]) || edge(b[e - 1]) || hasByte(b, s, e, (c) => c === 36)),
    removeModifiersFrom,
  );
}

function hasByte(b: Uint8Array, s: number, e: number, test: (c: number) => boolean): boolean {
  for (let j = s; j < e; j += 1) if (test(b[j])) return true;
  return false;
}
