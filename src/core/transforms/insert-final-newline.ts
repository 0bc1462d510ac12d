import type { Transformation } from './types.js';
import { SYNTHETIC, concatLines, syntheticLines } from './lines.js';
import { isBlankAt, withRanges, type PackedLines } from './packed.js';

export const insertFinalNewLine: Transformation = {
  name: 'InsertFinalNewLine',
  summary: 'ends the list with a newline unless its last line is already blank',
  apply(lines) {
    const n = lines.text.length;
    if (n > 0 && lines.text[n - 1].trim() === '') return lines;
    const tracked = lines.from !== undefined;
    return concatLines([lines, syntheticLines([''], tracked)], tracked);
  },
  applyPacked(lines) {
    const n = lines.start.length;
    if (n > 0 && isBlankAt(lines, n - 1)) return lines;
    return withEmptyLine(lines);
  },
};

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
