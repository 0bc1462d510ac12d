import type { Transformation } from './types.js';
import { concatLines } from './lines.js';

export const insertFinalNewLine: Transformation = {
  name: 'InsertFinalNewLine',
  summary: 'ends the list with a newline unless its last line is already blank',
  apply(lines) {
    if (lines.text.at(-1)?.trim() === '') return lines;
    return concatLines([lines, { text: [''] }], lines.from !== undefined);
  },
};
