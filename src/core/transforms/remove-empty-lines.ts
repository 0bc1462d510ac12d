import type { Transformation } from './types.js';
import { keepWhere } from './lines.js';

export const removeEmptyLines: Transformation = {
  name: 'RemoveEmptyLines',
  summary: 'removes blank and whitespace-only lines',
  apply(lines, ctx) {
    const keep = new Uint8Array(lines.text.length);
    lines.text.forEach((line, i) => {
      if (line.trim().length > 0) keep[i] = 1;
      else if (ctx.reporting) ctx.removed(lines.text[i], lines.from?.[i], 'empty-line', 'empty line');
    });
    return keepWhere(lines, keep);
  },
};
