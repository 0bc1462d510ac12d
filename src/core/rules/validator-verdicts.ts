import { normalizeIpRule } from './ip-normalize.js';
import { fullRuleProblem, type ValidityOptions } from './rule-validity.js';

/** The four Validate transformations and the options each checks with. */
export const VALIDATOR_OPTIONS = {
  Validate: { allowIp: false, allowPublicSuffix: false },
  ValidateAllowIp: { allowIp: true, allowPublicSuffix: false },
  ValidateAllowPublicSuffix: { allowIp: false, allowPublicSuffix: true },
  ValidateAllowIpAndPublicSuffix: { allowIp: true, allowPublicSuffix: true },
} as const satisfies Record<string, ValidityOptions>;

export type ValidatorName = keyof typeof VALIDATOR_OPTIONS;

/** Whether a validator keeps a rule, and why not; `rule` is the rule as the IP variants rewrite it. */
export interface ValidatorVerdict {
  kept: boolean;
  reason?: string;
  rule?: string;
}

/**
 * What each Validate transformation of a compile does with the single line `rule`: the same
 * checks (and, for the IP variants, the same rewriting of IP patterns first) as in a list.
 */
export function validatorVerdicts(rule: string): Record<ValidatorName, ValidatorVerdict> {
  const out = {} as Record<ValidatorName, ValidatorVerdict>;
  for (const [name, opts] of Object.entries(VALIDATOR_OPTIONS) as [ValidatorName, ValidityOptions][]) {
    const rewritten = opts.allowIp ? normalizeIpRule(rule) : null;
    const problem = fullRuleProblem(rewritten ?? rule, opts);
    const verdict: ValidatorVerdict = problem === null ? { kept: true } : { kept: false, reason: problem };
    if (rewritten !== null && rewritten !== rule) verdict.rule = rewritten;
    out[name] = verdict;
  }
  return out;
}
