import type { Transformation } from './types.js';
import { type Drop, dropWithAbove, keepWhere } from './lines.js';
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
      else if (text[i].length > 0 && !isComment(text[i])) return DUPLICATE[1];
      return null;
    };
    return keepWhere(
      lines,
      dropWithAbove(text.length, (i) => text[i], lines.from, ctx, duplicate, DUPLICATE[0], ABOVE_DUPLICATE),
    );
  },
};

/** Why Deduplicate removes a line: a copy of a rule kept further down, or a comment or empty line above one. */
export const DUPLICATE: Drop = ['duplicate', 'a later copy of this rule is kept'];
export const ABOVE_DUPLICATE: Drop = ['comment-above-duplicate', 'directly above a removed duplicate'];
