import type { Transformation } from './types.js';
import { keepWhere } from './lines.js';
import { isComment } from '../rules/rule-text.js';

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
};
