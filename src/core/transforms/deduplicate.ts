import type { Transformation } from './types.js';
import { keepWhere } from './lines.js';
import { isComment } from './rule-text.js';
import { StringTable } from './string-table.js';

/**
 * Keeps the last copy of each rule. Walking from the end, a removed copy takes the
 * comments and empty lines directly above it along, as the reference does.
 */
export const deduplicate: Transformation = {
  name: 'Deduplicate',
  summary: 'removes duplicate rules, keeping the last copy and dropping comments above removed copies',
  apply(lines, ctx) {
    const text = lines.text;
    const keep = new Uint8Array(text.length).fill(1);
    const seen = new StringTable(text.length);
    let removing = false;
    for (let i = text.length - 1; i >= 0; i -= 1) {
      const line = text[i];
      const dup = !seen.add(line);
      const commentOrEmpty = line.length === 0 || isComment(line);
      if (dup && !commentOrEmpty) {
        removing = true;
        keep[i] = 0;
        if (ctx.reporting) ctx.removed(lines.text[i], lines.from?.[i], 'duplicate', 'a later copy of this rule is kept');
      } else if (removing && commentOrEmpty) {
        keep[i] = 0;
        if (ctx.reporting) ctx.removed(lines.text[i], lines.from?.[i], 'comment-above-duplicate', 'directly above a removed duplicate');
      } else {
        removing = false;
      }
    }
    return keepWhere(lines, keep);
  },
};
