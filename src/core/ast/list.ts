import { z } from 'zod';
import type { AnyRule } from '@adguard/agtree';
import { parseRule } from './parse-rule.js';
import { detectSyntax } from './syntax.js';
import { validateRule } from './validate-rule.js';
import { InputError } from '../errors/index.js';
import { issueMessages } from './issues.js';

export interface ParsedRule {
  rule: string;
  ruleType: string;
  category: string;
  syntax: string;
  valid: boolean;
  error?: string;
  ast: AnyRule;
}

export const parseRulesRequestSchema = z.object({
  rules: z
    .array(z.string().max(4096, 'each rule must be at most 4096 characters'))
    .min(1, 'rules must not be empty')
    .max(5000, 'rules must have at most 5000 items'),
});

/** Parses each rule tolerantly: type, category, dialect, validity and tree per rule. */
export function parseRules(request: unknown): { results: ParsedRule[] } {
  const parsed = parseRulesRequestSchema.safeParse(request);
  if (!parsed.success) throw new InputError(issueMessages(parsed.error));
  const results = parsed.data.rules.map((rule): ParsedRule => {
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

export interface ListValidation {
  valid: boolean;
  totals: { lines: number; rules: number; valid: number; invalid: number; comments: number; empty: number };
  errors: { line: number; rule: string; error: string }[];
}

/** Validates every line of a list; errors carry 1-based line numbers. */
export function validateList(request: unknown): ListValidation {
  const parsed = validateListRequestSchema.safeParse(request);
  if (!parsed.success) throw new InputError(issueMessages(parsed.error));
  const lines = parsed.data.rules ?? parsed.data.text!.split(/\r\n|\r|\n/);
  const totals = { lines: lines.length, rules: 0, valid: 0, invalid: 0, comments: 0, empty: 0 };
  const errors: ListValidation['errors'] = [];
  lines.forEach((rule, i) => {
    if (rule.trim().length === 0) {
      totals.empty += 1;
      return;
    }
    const result = validateRule({ rule, strict: parsed.data.strict });
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
