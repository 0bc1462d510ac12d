import type { Transformation } from './types.js';
import { keepWhere } from './lines.js';
import { isCommentAt, keepWherePacked, lineText } from './packed.js';
import { isComment } from './rule-text.js';

export const removeComments: Transformation = {
  name: 'RemoveComments',
  summary: 'removes lines starting with `!`, `# `, a lone `#` or `####`',
  apply(lines, ctx) {
    const keep = new Uint8Array(lines.text.length);
    lines.text.forEach((line, i) => {
      if (!isComment(line)) keep[i] = 1;
      else if (ctx.reporting) ctx.removed(lines.text[i], lines.from?.[i], 'comment', 'comment line');
    });
    return keepWhere(lines, keep);
  },
  applyPacked(lines, ctx) {
    const { bytes, start, end } = lines;
    const keep = new Uint8Array(start.length);
    for (let i = 0; i < keep.length; i += 1) {
      // Only a line that starts with `!` or `#` can be a comment: the rest are kept without a call.
      const c = start[i] < end[i] ? bytes[start[i]] : 0;
      if ((c !== 33 && c !== 35) || !isCommentAt(lines, i)) keep[i] = 1;
      else if (ctx.reporting) ctx.removed(lineText(lines, i), lines.from?.[i], 'comment', 'comment line');
    }
    return keepWherePacked(lines, keep);
  },
};
