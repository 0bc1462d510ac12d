import { z } from 'zod';
import { parseRule } from './parse-rule.js';
import { detectSyntax } from './syntax.js';
import { validateRule } from './validate-rule.js';
import { parseRequest } from './issues.js';

export const parseRulesRequestSchema = z.object({
  rules: z
    .array(z.string().max(4096, 'each rule must be at most 4096 characters'))
    .min(1, 'rules must not be empty')
    .max(5000, 'rules must have at most 5000 items'),
});

/** Parses each rule tolerantly: type, category, dialect, validity and tree per rule. */
export function parseRules(request: unknown) {
  const results = parseRequest(parseRulesRequestSchema, request).rules.map((rule) => {
    const ast = parseRule(rule);
    const invalid = ast.type === 'InvalidRule';
    return {
      rule,
      ruleType: ast.type,
      category: ast.category,
      syntax: detectSyntax(ast),
      valid: !invalid,
      ...(invalid ? { error: ast.error.message } : {}),
      ast,
    };
  });
  return { results };
}

export const validateListRequestSchema = z
  .object({
    rules: z.array(z.string()).max(5000, 'rules must have at most 5000 items').optional(),
    text: z
      .string()
      .max(1024 * 1024, 'text must be at most 1 MiB')
      .optional(),
    strict: z.boolean().optional(),
  })
  .refine((v) => (v.rules === undefined) !== (v.text === undefined), {
    message: 'exactly one of rules and text is required',
  });

/** Validates every line of a list; errors carry 1-based line numbers. */
export function validateList(request: unknown) {
  const { rules, text, strict } = parseRequest(validateListRequestSchema, request);
  const lines = rules ?? text!.split(/\r\n|\r|\n/);
  const totals = { lines: lines.length, rules: 0, valid: 0, invalid: 0, comments: 0, empty: 0 };
  const errors: { line: number; rule: string; error: string }[] = [];
  lines.forEach((rule, i) => {
    if (rule.trim().length === 0) {
      totals.empty += 1;
      return;
    }
    const result = validateRule({ rule, strict });
    if (!result.valid) {
      totals.rules += 1;
      totals.invalid += 1;
      errors.push({ line: i + 1, rule, error: result.error });
    } else if (result.category === 'Comment') {
      totals.comments += 1;
    } else {
      totals.rules += 1;
      totals.valid += 1;
    }
  });
  return { valid: errors.length === 0, totals, errors };
}
