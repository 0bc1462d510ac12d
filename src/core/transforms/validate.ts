import type { Transformation, TransformationName, TransformContext } from './types.js';
import type { Lines } from './lines.js';
import { dropFromEnd, keepWhere, withTexts } from './lines.js';
import { isComment } from '../rules/rule-text.js';
import { fullRuleProblem, type ValidityOptions } from '../rules/rule-validity.js';
import { normalizeIpRule } from '../rules/ip-normalize.js';

/** Records a dropped rule, or a comment directly above one, when a report is wanted. */
export function invalidReporter(ctx: TransformContext, text: (i: number) => string, from: Float64Array | undefined) {
  if (!ctx.reporting) return null;
  return (i: number, above: boolean, reason: string) =>
    above
      ? ctx.removed(text(i), from?.[i], 'comment-above-invalid', 'directly above a removed rule')
      : ctx.removed(text(i), from?.[i], 'invalid-rule', reason);
}

/**
 * Drops rules a DNS-level blocker cannot use safely. Walking from the end, the
 * comments and empty lines directly above a dropped rule go with it.
 */
function validator(name: TransformationName, summary: string, opts: ValidityOptions): Transformation {
  const transformation: Transformation = {
    name,
    summary,
    apply(input, ctx) {
      let lines: Lines = input;
      if (opts.allowIp) {
        lines = withTexts(
          input,
          input.text.map((t) => normalizeIpRule(t) ?? t),
        );
      }
      const text = lines.text;
      const keep = dropFromEnd(
        text.length,
        (i) => fullRuleProblem(text[i], opts),
        (i) => text[i].length === 0 || isComment(text[i]),
        invalidReporter(ctx, (i) => text[i], lines.from),
      );
      return keepWhere(lines, keep);
    },
  };
  return transformation;
}

export const validate = validator('Validate', 'removes rules that are dangerous or unusable for DNS-level blocking', {
  allowIp: false,
  allowPublicSuffix: false,
});
export const validateAllowIp = validator('ValidateAllowIp', 'like Validate, but keeps IP address rules', {
  allowIp: true,
  allowPublicSuffix: false,
});
export const validateAllowPublicSuffix = validator(
  'ValidateAllowPublicSuffix',
  'like Validate, but keeps rules blocking a whole public suffix',
  { allowIp: false, allowPublicSuffix: true },
);
export const validateAllowIpAndPublicSuffix = validator(
  'ValidateAllowIpAndPublicSuffix',
  'like Validate, but keeps IP address and public suffix rules',
  { allowIp: true, allowPublicSuffix: true },
);
