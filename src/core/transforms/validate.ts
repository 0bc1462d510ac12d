import type { Transformation, TransformationName } from './types.js';
import type { Lines } from './lines.js';
import { keepWhere, withTexts } from './lines.js';
import { isComment } from './rule-text.js';
import { ruleProblem, type ValidityOptions } from './rule-validity.js';
import { normalizeIpRule } from './ip-normalize.js';

/**
 * Drops rules a DNS-level blocker cannot use safely. Walking from the end, the
 * comments and empty lines directly above a dropped rule go with it.
 */
function validator(name: TransformationName, summary: string, opts: ValidityOptions): Transformation {
  return {
    name,
    summary,
    apply(input, ctx) {
      let lines: Lines = input;
      if (opts.allowIp) {
        lines = withTexts(input, input.text.map((t) => normalizeIpRule(t) ?? t));
      }
      const text = lines.text;
      const keep = new Uint8Array(text.length).fill(1);
      let removing = false;
      for (let i = text.length - 1; i >= 0; i -= 1) {
        const line = text[i];
        const problem = ruleProblem(line, opts);
        if (problem !== null) {
          removing = true;
          keep[i] = 0;
          if (ctx.reporting) ctx.removed(line, lines.from?.[i], 'invalid-rule', problem);
        } else if (removing && (line.length === 0 || isComment(line))) {
          keep[i] = 0;
          if (ctx.reporting) ctx.removed(line, lines.from?.[i], 'comment-above-invalid', 'directly above a removed rule');
        } else {
          removing = false;
        }
      }
      return keepWhere(lines, keep);
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
