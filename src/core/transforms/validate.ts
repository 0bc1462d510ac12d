import type { Transformation, TransformationName } from './types.js';
import { dropWithAbove, withTexts } from './lines.js';
import { fullRuleProblem, type ValidityOptions } from '../rules/rule-validity.js';
import { normalizeIpRule } from '../rules/ip-normalize.js';

/**
 * Drops rules a DNS-level blocker cannot use safely. Walking from the end, the
 * comments and empty lines directly above a dropped rule go with it.
 */
function validator(name: TransformationName, summary: string, opts: ValidityOptions): Transformation {
  return {
    name,
    summary,
    apply(input, ctx) {
      const lines = opts.allowIp
        ? withTexts(
            input,
            input.text.map((t) => normalizeIpRule(t) ?? t),
          )
        : input;
      return dropWithAbove(lines, ctx, (i) => fullRuleProblem(lines.text[i], opts), 'invalid-rule', [
        'comment-above-invalid',
        'directly above a removed rule',
      ]);
    },
  };
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
