import type { Transformation } from './types.js';
import { concatLines, syntheticLines } from './lines.js';

export const insertFinalNewLine: Transformation = {
  name: 'InsertFinalNewLine',
  summary: 'ends the list with a newline unless its last line is already blank',
  apply(lines) {
    if (lines.text.at(-1)?.trim() === '') return lines;
    const tracked = lines.from !== undefined;
    return concatLines([lines, syntheticLines([''], tracked)], tracked);
  },
};
