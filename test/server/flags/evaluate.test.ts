import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { conditionHolds, evaluateFlag, rolloutBucket } from '../../../src/server/flags/evaluate.js';
import type { FlagDefinition, FlagRule } from '../../../src/server/flags/flag-schema.js';

const numRuns = Number(process.env.FC_RUNS ?? 200);
const userId = fc.string({ minLength: 1, maxLength: 24 });
const key = fc.stringMatching(/^[a-z0-9_-]{1,16}$/);

/** A flag whose variation names are the rules' indexes, so the serving rule can be read off the answer. */
function flagOf(rules: FlagRule[], enabled = true): FlagDefinition {
  const variations: Record<string, unknown> = { default: -1 };
  rules.forEach((_r, i) => {
    variations[`r${i}`] = i;
  });
  return { key: 'k', enabled, default_variation: 'default', variations, rules, description: '', type: 'number' };
}

describe('feature-flag evaluation (properties)', () => {
  test('the first matching rule in ascending priority serves, ties in listed order', () => {
    const rule = fc.record({ priority: fc.integer({ min: -5, max: 5 }), matches: fc.boolean() });
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 8 }), userId, (specs, user) => {
        const rules: FlagRule[] = specs.map((s, i) => ({
          priority: s.priority,
          conditions: [{ attribute: 'plan', operator: 'eq', value: s.matches ? 'pro' : 'free' }],
          serve_variation: `r${i}`,
        }));
        const got = evaluateFlag(flagOf(rules), { userId: user, attributes: { plan: 'pro' } });
        const order = specs.map((s, i) => ({ ...s, i })).sort((a, b) => a.priority - b.priority || a.i - b.i);
        const first = order.find((s) => s.matches);
        expect(got.value).toBe(first ? first.i : -1);
        expect(got.reason).toBe(first ? 'rule' : 'default');
      }),
      { numRuns },
    );
  });

  test('a disabled flag serves its default whatever the rules', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 5 }), userId, (priorities, user) => {
        const rules = priorities.map((priority, i) => ({ priority, conditions: [], serve_variation: `r${i}` }));
        expect(evaluateFlag(flagOf(rules, false), { userId: user, attributes: {} })).toEqual({
          value: -1,
          variation: 'default',
          reason: 'disabled',
        });
      }),
      { numRuns },
    );
  });

  test('a stored condition whose operator the schema lacks never holds, whatever its name', () => {
    for (const operator of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'like'])
      expect(conditionHolds({ attribute: 'x', operator, value: 'a' } as never, { x: 'a' })).toBe(false);
  });

  test('a rule needs every condition; conditions agree with their operators', () => {
    const value = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('a', 'ab', 'b'));
    fc.assert(
      fc.property(value, value, (actual, expected) => {
        const attrs = { x: actual };
        expect(conditionHolds({ attribute: 'x', operator: 'eq', value: expected }, attrs)).toBe(actual === expected);
        expect(conditionHolds({ attribute: 'x', operator: 'neq', value: expected }, attrs)).toBe(actual !== expected);
        expect(conditionHolds({ attribute: 'x', operator: 'in', value: [expected, 'ab'] }, attrs)).toBe(
          actual === expected || actual === 'ab',
        );
        if (typeof actual === 'number' && typeof expected === 'number') {
          expect(conditionHolds({ attribute: 'x', operator: 'gt', value: expected }, attrs)).toBe(actual > expected);
          expect(conditionHolds({ attribute: 'x', operator: 'lte', value: expected }, attrs)).toBe(actual <= expected);
        }
        const both = [
          { attribute: 'x', operator: 'eq' as const, value: expected },
          { attribute: 'y', operator: 'eq' as const, value: 1 },
        ];
        const rule = { priority: 0, conditions: both, serve_variation: 'r0' };
        const got = evaluateFlag(flagOf([rule]), { userId: 'u', attributes: { x: actual } });
        // y is absent: the rule never serves, whatever x is.
        expect(got.reason).toBe('default');
        // An absent attribute never equals anything.
        expect(conditionHolds({ attribute: 'missing', operator: 'eq', value: expected }, attrs)).toBe(false);
      }),
      { numRuns },
    );
  });

  test('rollout: the same user gets the same answer, and raising the percentage never takes it away', () => {
    fc.assert(
      fc.property(
        userId,
        key,
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        (user, flagKey, p1, p2) => {
          const [low, high] = p1 <= p2 ? [p1, p2] : [p2, p1];
          const at = (percentage: number) =>
            evaluateFlag(
              {
                ...flagOf([{ priority: 0, conditions: [], serve_variation: 'r0', rollout: { percentage } }]),
                key: flagKey,
              },
              { userId: user, attributes: {} },
            ).value;
          expect(at(low)).toBe(at(low));
          if (at(low) === 0) expect(at(high)).toBe(0);
          expect(at(0)).toBe(-1);
          expect(at(100)).toBe(0);
          const bucket = rolloutBucket(flagKey, user);
          expect(bucket).toBeGreaterThanOrEqual(0);
          expect(bucket).toBeLessThan(100);
        },
      ),
      { numRuns },
    );
  });

  test('a rollout takes about its share of users', () => {
    let served = 0;
    for (let i = 0; i < 10_000; i++) if (rolloutBucket('share', `user-${i}`) < 30) served += 1;
    expect(served).toBeGreaterThan(2_700);
    expect(served).toBeLessThan(3_300);
  });
});
