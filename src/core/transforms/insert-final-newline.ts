import type { Transformation } from './types.js';
import { SYNTHETIC, concatLines, syntheticLines } from './lines.js';
import { isBlankAt, PackedBuilder } from './packed.js';

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
    const out = new PackedBuilder(lines, n + 1);
    for (let i = 0; i < n; i += 1) out.push(lines.start[i], lines.end[i], lines.from?.[i] ?? SYNTHETIC);
    out.push(0, 0, SYNTHETIC);
    return out.finish();
  },
};
