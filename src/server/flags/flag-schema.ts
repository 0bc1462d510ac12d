import { z } from '@hono/zod-openapi';
import { OPERATORS } from './evaluate.js';

/** The specification's Feature flag, as the routes accept it and the store keeps it. */

export const FLAG_TYPES = ['boolean', 'string', 'number', 'json'] as const;
export type FlagType = (typeof FLAG_TYPES)[number];

export const conditionSchema = z.object({
  attribute: z.string().min(1),
  operator: z.enum(Object.keys(OPERATORS) as [keyof typeof OPERATORS, ...(keyof typeof OPERATORS)[]]),
  value: z.unknown(),
});

export const ruleSchema = z.object({
  priority: z.number().int(),
  conditions: z.array(conditionSchema).default([]),
  serve_variation: z.string().min(1),
  rollout: z.object({ percentage: z.number().min(0).max(100) }).optional(),
});

export const flagFields = {
  enabled: z.boolean(),
  default_variation: z.string().min(1),
  variations: z.record(z.string(), z.unknown()),
  rules: z.array(ruleSchema),
  description: z.string(),
  type: z.enum(FLAG_TYPES),
};

export const FLAG_KEY = /^[A-Za-z0-9_-]{1,128}$/;

export type FlagRule = z.infer<typeof ruleSchema>;
export type Condition = z.infer<typeof conditionSchema>;

const flagDefinition = z.object({ key: z.string(), ...flagFields });
export type FlagDefinition = z.infer<typeof flagDefinition>;

/** The type of one variation value: its JavaScript type when that is a flag type, else `json`. */
const typeOf = (value: unknown): FlagType => FLAG_TYPES.find((t) => t === typeof value) ?? 'json';

/**
 * Checks what a schema cannot: one value type across the variations (the given `type`, or
 * inferred), and variation names that exist. Returns the problems (none: valid) and the type.
 */
export function checkFlag(f: Omit<FlagDefinition, 'type'> & { type?: FlagType }): {
  problems: string[];
  type: FlagType;
} {
  const problems: string[] = [];
  const names = Object.keys(f.variations);
  if (names.length === 0) problems.push('variations: at least one variation is needed');
  const types = new Set(Object.values(f.variations).map(typeOf));
  const type = f.type ?? ([...types][0] as FlagType | undefined) ?? 'boolean';
  for (const [name, value] of Object.entries(f.variations))
    if (typeOf(value) !== type) problems.push(`variations.${name}: a ${typeOf(value)}, but the flag's type is ${type}`);
  if (!(f.default_variation in f.variations))
    problems.push(`default_variation: no variation named ${f.default_variation}`);
  f.rules.forEach((r, i) => {
    if (!(r.serve_variation in f.variations))
      problems.push(`rules.${i}.serve_variation: no variation named ${r.serve_variation}`);
  });
  return { problems, type };
}
