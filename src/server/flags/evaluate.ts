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

/** Whether one condition holds for the attributes (an absent attribute matches only `neq` and `not_in`). */
export function conditionHolds(cond: Condition, attributes: Record<string, unknown>): boolean {
  const actual = Object.hasOwn(attributes, cond.attribute) ? attributes[cond.attribute] : undefined;
  const list = Array.isArray(cond.value) ? cond.value : [cond.value];
  switch (cond.operator) {
    case 'eq':
      return actual !== undefined && actual === cond.value;
    case 'neq':
      return actual !== cond.value;
    case 'in':
      return actual !== undefined && list.includes(actual);
    case 'not_in':
      return !list.includes(actual);
    case 'contains':
      return typeof actual === 'string' && typeof cond.value === 'string' && actual.includes(cond.value);
    case 'starts_with':
      return typeof actual === 'string' && typeof cond.value === 'string' && actual.startsWith(cond.value);
    case 'ends_with':
      return typeof actual === 'string' && typeof cond.value === 'string' && actual.endsWith(cond.value);
    case 'gt':
      return asNumber(actual) > asNumber(cond.value);
    case 'gte':
      return asNumber(actual) >= asNumber(cond.value);
    case 'lt':
      return asNumber(actual) < asNumber(cond.value);
    case 'lte':
      return asNumber(actual) <= asNumber(cond.value);
  }
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
