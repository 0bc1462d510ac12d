/** Packed forms of the line-by-line transformations: trimming, comments, blank lines, final newline, punycode. */
import type { TransformContext } from '../transforms/types.js';
import { SYNTHETIC } from '../transforms/lines.js';
import { toAscii } from '../transforms/convert-to-ascii.js';
import {
  isBlankAt,
  isCommentAt,
  keepWherePacked,
  lineText,
  PackedBuilder,
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
  // A new list all the same: trimming can make two plain host rules alike.
  return withRanges(lines, start, end, lines.from);
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
    // A line whose first byte is printable ASCII is not blank: kept without a call. This loop
    // and RemoveComments' are written out, not shared: one helper called with both predicates
    // lost the gain (V8 stops inlining the predicate once it has seen two).
    const c = start[i] < end[i] ? bytes[start[i]] : 0;
    if ((c > 32 && c < 127) || !isBlankAt(lines, i)) keep[i] = 1;
    else if (ctx.reporting) ctx.removed(lineText(lines, i), lines.from?.[i], 'empty-line', 'empty line');
  }
  return keepWherePacked(lines, keep);
}

export function insertFinalNewLinePacked(lines: PackedLines): PackedLines {
  const n = lines.start.length;
  if (n > 0 && isBlankAt(lines, n - 1)) return lines;
  return withEmptyLine(lines);
}

export function convertToAsciiPacked(lines: PackedLines): PackedLines {
  // Only a line with a non-ASCII byte can change: the others keep their bytes.
  const { bytes, start, end, from } = lines;
  const out = new PackedBuilder(lines, start.length);
  for (let i = 0; i < start.length; i += 1) {
    let s = start[i];
    let e = end[i];
    let j = s;
    while (j < e && bytes[j] < 128) j += 1;
    if (j < e) {
      const text = lineText(lines, i);
      const converted = toAscii(text);
      if (converted !== text) {
        s = out.appendText(converted);
        e = out.used;
      }
    }
    out.push(s, e, from ? from[i] : 0);
  }
  return out.finish();
}

/** The list and one more, empty, synthetic line: new offsets, the same bytes (an empty line has none). */
function withEmptyLine(lines: PackedLines): PackedLines {
  const n = lines.start.length;
  const start = new Int32Array(n + 1);
  const end = new Int32Array(n + 1);
  start.set(lines.start);
  end.set(lines.end);
  let from: Float64Array | undefined;
  if (lines.from) {
    from = new Float64Array(n + 1);
    from.set(lines.from);
    from[n] = SYNTHETIC;
  }
  return withRanges(lines, start, end, from);
}
