import { createHash } from 'node:crypto';
import type { Condition, FlagDefinition } from './flag-schema.js';

/** Who a flag is evaluated for: a stable id for rollouts and the attributes conditions test. */
export interface FlagContext {
  userId: string;
  attributes: Record<string, unknown>;
}

export interface Evaluation {
  value: unknown;
  variation: string;
  reason: 'disabled' | 'rule' | 'default';
  /** The priority of the rule that served, when one did. */
  rule?: number;
}

/**
 * The user's bucket for a flag, in [0, 100): a hash of the flag key and user id, so a user keeps
 * their bucket across evaluations and servers, and a rollout at p% serves exactly the buckets
 * below p (raising p only adds users).
 */
export function rolloutBucket(flagKey: string, userId: string): number {
  const digest = createHash('sha256').update(`${flagKey}\u0000${userId}`).digest();
  return (digest.readUInt32BE(0) / 2 ** 32) * 100;
}

const asNumber = (v: unknown) =>
  typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : Number.NaN;
const listOf = (v: unknown) => (Array.isArray(v) ? v : [v]);
const texts = (test: (actual: string, value: string) => boolean) => (actual: unknown, value: unknown) =>
  typeof actual === 'string' && typeof value === 'string' && test(actual, value);

/**
 * Each operator's test of an attribute's value against a condition's (an absent attribute is
 * undefined, and matches only `neq` and `not_in`); in the order the schema lists them.
 */
export const OPERATORS = {
  eq: (actual, value) => actual !== undefined && actual === value,
  neq: (actual, value) => actual !== value,
  in: (actual, value) => actual !== undefined && listOf(value).includes(actual),
  not_in: (actual, value) => !listOf(value).includes(actual),
  contains: texts((actual, value) => actual.includes(value)),
  starts_with: texts((actual, value) => actual.startsWith(value)),
  ends_with: texts((actual, value) => actual.endsWith(value)),
  gt: (actual, value) => asNumber(actual) > asNumber(value),
  gte: (actual, value) => asNumber(actual) >= asNumber(value),
  lt: (actual, value) => asNumber(actual) < asNumber(value),
  lte: (actual, value) => asNumber(actual) <= asNumber(value),
} satisfies Record<string, (actual: unknown, value: unknown) => boolean>;

/**
 * Whether one condition holds for the attributes; one of an operator the schema lacks (a row
 * written by hand) never does.
 */
export function conditionHolds(cond: Condition, attributes: Record<string, unknown>): boolean {
  if (!Object.hasOwn(OPERATORS, cond.operator)) return false;
  return OPERATORS[cond.operator](
    Object.hasOwn(attributes, cond.attribute) ? attributes[cond.attribute] : undefined,
    cond.value,
  );
}

/**
 * Evaluates a flag: disabled serves the default variation; otherwise the rules in ascending
 * priority (ties in their listed order), the first whose conditions all hold and whose rollout
 * (if any) takes the user's bucket serves its variation; no such rule serves the default.
 */
export function evaluateFlag(flag: FlagDefinition, ctx: FlagContext): Evaluation {
  const serve = (variation: string, reason: Evaluation['reason'], rule?: number): Evaluation => ({
    value: flag.variations[variation],
    variation,
    reason,
    ...(rule === undefined ? {} : { rule }),
  });
  if (!flag.enabled) return serve(flag.default_variation, 'disabled');
  // Array sort is stable: rules of one priority keep their listed order.
  for (const r of [...flag.rules].sort((a, b) => a.priority - b.priority)) {
    if (!r.conditions.every((c) => conditionHolds(c, ctx.attributes))) continue;
    if (r.rollout && rolloutBucket(flag.key, ctx.userId) >= r.rollout.percentage) continue;
    return serve(r.serve_variation, 'rule', r.priority);
  }
  return serve(flag.default_variation, 'default');
}
