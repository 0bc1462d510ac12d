import type { Transformation } from './types.js';
import { dropFromEnd, keepWhere } from './lines.js';
import { isComment } from '../rules/rule-text.js';
import type { TransformContext } from './types.js';

const KEPT_LATER = 'a later copy of this rule is kept';

/** Records a dropped copy, or a comment directly above one, when a report is wanted. */
function duplicateReporter(ctx: TransformContext, text: (i: number) => string, from: Float64Array | undefined) {
  if (!ctx.reporting) return null;
  return (i: number, above: boolean) =>
    above
      ? ctx.removed(text(i), from?.[i], 'comment-above-duplicate', 'directly above a removed duplicate')
      : ctx.removed(text(i), from?.[i], 'duplicate', KEPT_LATER);
}

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
    const commentOrEmpty = (i: number) => text[i].length === 0 || isComment(text[i]);
    const duplicate = (i: number) => {
      if (seen.has(text[i])) return commentOrEmpty(i) ? null : KEPT_LATER;
      seen.add(text[i]);
      return null;
    };
    const keep = dropFromEnd(
      text.length,
      duplicate,
      commentOrEmpty,
      duplicateReporter(ctx, (i) => text[i], lines.from),
    );
    return keepWhere(lines, keep);
  },
};
