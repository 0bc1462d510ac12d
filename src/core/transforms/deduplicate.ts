import type { Transformation } from './types.js';
import { dropWithAbove } from './lines.js';
import { isComment } from '../rules/rule-text.js';

/**
 * Keeps the last copy of each rule. Walking from the end, a removed copy takes the
 * comments and empty lines directly above it along, as the reference does.
 */
export const deduplicate: Transformation = {
  name: 'Deduplicate',
  summary: 'removes duplicate rules, keeping the last copy and dropping comments above removed copies',
  apply(lines, ctx) {
    const text = lines.text;
    const seen = new Set<string>();
    const duplicate = (i: number) => {
      if (!seen.has(text[i])) seen.add(text[i]);
      else if (text[i].length > 0 && !isComment(text[i])) return 'a later copy of this rule is kept';
      return null;
    };
    return dropWithAbove(lines, ctx, duplicate, 'duplicate', [
      'comment-above-duplicate',
      'directly above a removed duplicate',
    ]);
  },
};
