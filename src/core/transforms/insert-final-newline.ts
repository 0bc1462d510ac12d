import type { Transformation } from './types.js';
import { concatLines, syntheticLines } from './lines.js';
import { concatPacked, isBlankAt, packStrings } from './packed.js';

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
    const tracked = lines.from !== undefined;
    return concatPacked([lines, packStrings([''], syntheticLines([''], tracked).from)], tracked);
  },
};
