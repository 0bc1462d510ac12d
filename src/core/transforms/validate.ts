import type { Transformation, TransformationName } from './types.js';
import { type Drop, dropWithAbove, keepWhere, withTexts } from './lines.js';
import { fullRuleProblem } from '../rules/rule-validity.js';
import { normalizeIpRule } from '../rules/ip-normalize.js';

/** Why a validator removes a comment or empty line: it is directly above an invalid rule. */
export const ABOVE_INVALID: Drop = ['comment-above-invalid', 'directly above a removed rule'];

/**
 * Drops rules a DNS-level blocker cannot use safely. Walking from the end, the
 * comments and empty lines directly above a dropped rule go with it.
 */
function validator(name: TransformationName, summary: string, allowIp: boolean, allowPublicSuffix: boolean) {
  const opts = { allowIp, allowPublicSuffix };
  return {
    name,
    summary,
    apply(input, ctx) {
      const lines = allowIp
        ? withTexts(
            input,
            input.text.map((t) => normalizeIpRule(t) ?? t),
          )
        : input;
      const { text, from } = lines;
      const problem = (i: number) => fullRuleProblem(text[i], opts);
      return keepWhere(
        lines,
        dropWithAbove(text.length, (i) => text[i], from, ctx, problem, 'invalid-rule', ABOVE_INVALID),
      );
    },
  } satisfies Transformation;
}

/** Validate and its three variants, in execution order. */
export const validators = [
  validator('Validate', 'removes rules that are dangerous or unusable for DNS-level blocking', false, false),
  validator('ValidateAllowIp', 'like Validate, but keeps IP address rules', true, false),
  validator('ValidateAllowPublicSuffix', 'like Validate, but keeps rules blocking a whole public suffix', false, true),
  validator(
    'ValidateAllowIpAndPublicSuffix',
    'like Validate, but keeps IP address and public suffix rules',
    true,
    true,
  ),
];
