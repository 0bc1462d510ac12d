import type { Transformation } from './types.js';
import { keepWhere } from './lines.js';
import { isBlankAt, keepWherePacked, lineText } from './packed.js';

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
  applyPacked(lines, ctx) {
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
  },
};
