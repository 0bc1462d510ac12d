import { z } from 'zod';
import type { AnyRule } from '@adguard/agtree';
import { parseRule } from './parse-rule.js';
import { detectSyntax, type Syntax } from './syntax.js';
import { strictProblem } from './strict.js';
import { hostnameMatchNeedsRegex, matchHostname, type MatchOutcome } from './match.js';
import { parseRequest } from './issues.js';
import { validatorVerdicts, type ValidatorName, type ValidatorVerdict } from '../rules/validator-verdicts.js';

export const validateRuleRequestSchema = z.object({
  rule: z.string({ error: 'rule must be a string' }).min(1, 'rule must not be empty'),
  testUrl: z
    .string({ error: 'testUrl must be a string' })
    .refine((s) => URL.canParse(s) && /^[a-z][a-z0-9+.-]*:\/\/[^/]/i.test(s), 'testUrl must be a valid URL')
    .optional(),
  strict: z.boolean({ error: 'strict must be a boolean' }).optional(),
});

export type ValidateRuleRequest = z.infer<typeof validateRuleRequestSchema>;

interface RuleResult {
  success: true;
  rule: string;
  ruleType: string;
  duration: string;
  /** flc: whether each Validate transformation of a compile keeps the rule (invalid ones too), and why not. */
  validators: Record<ValidatorName, ValidatorVerdict>;
}

export type ValidateRuleResult = RuleResult &
  (
    | ({ valid: true; category: string; syntax: Syntax; ast: AnyRule; testUrl?: string } & MatchOutcome)
    | { valid: false; error: string }
  );

/** Milliseconds as the specification writes durations: `<n>ms`. */
export function formatDuration(ms: number): string {
  return `${Math.round(ms)}ms`;
}

/**
 * Parses one rule and reports its validity, type, category, dialect and tree, as the
 * body of `POST /api/validate-rule`. Tolerant mode accepts what AGTree's tolerant parser
 * accepts; strict mode parses non-tolerantly and adds per-product checks. A bad request
 * (empty rule, bad URL) throws InputError.
 */
export function validateRule(request: unknown): ValidateRuleResult {
  return validated(request, true) as ValidateRuleResult;
}

/**
 * `validateRule`, or null when its `testUrl` match would run a regular expression built from the
 * rule (decided on the parsed rule): the server then runs the request in its worker pool, under a
 * time budget, so that no client's regular expression runs on its main thread.
 */
export function validateRuleWithoutRegex(request: unknown): ValidateRuleResult | null {
  return validated(request, false);
}

function validated(request: unknown, regexHere: boolean): ValidateRuleResult | null {
  const { rule, testUrl, strict } = parseRequest(validateRuleRequestSchema, request);
  const started = performance.now();
  const tolerant = parseRule(rule, true);
  // The fields in their output order; the duration covers the hostname match.
  const result = (valid: boolean, fields: object, match: object = {}) =>
    ({
      success: true,
      valid,
      rule,
      ruleType: tolerant.type,
      ...fields,
      duration: formatDuration(performance.now() - started),
      validators: validatorVerdicts(rule),
      ...match,
    }) as ValidateRuleResult;
  if (tolerant.type === 'InvalidRule') return result(false, { error: tolerant.error.message });
  let ast = tolerant;
  const syntax = detectSyntax(ast);
  if (strict) {
    try {
      ast = parseRule(rule, false) as typeof ast;
    } catch (e) {
      return result(false, { error: (e as Error).message });
    }
    const problem = strictProblem(ast, syntax);
    if (problem) return result(false, { error: problem });
  }
  if (testUrl !== undefined && !regexHere && hostnameMatchNeedsRegex(ast)) return null;
  const match = testUrl === undefined ? {} : { testUrl, ...matchHostname(ast, new URL(testUrl).hostname) };
  return result(true, { category: ast.category, syntax, ast }, match);
}
