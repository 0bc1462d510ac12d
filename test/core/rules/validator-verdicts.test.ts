import { describe, expect, test } from 'vitest';
import { validatorVerdicts } from '../../../src/core/rules/validator-verdicts.js';
import { testApp } from '../../support/test-app.js';
import { runCli } from '../../support/cli.js';
import { referenceValidators } from '../../support/reference.js';

const REFERENCE = referenceValidators;

/** Rules AGTree calls valid that a compile's Validate drops, and some it keeps. */
const RULES = [
  '||*.org^',
  '||example.org^$domain=a.com',
  '||192.168.1^',
  '0.0.0.0 x_.example.com',
  '||a.-b.com^',
  '||ads.example.com^',
  '@@||good.example^$important',
  '192.168.1.1',
  '||co.uk^',
  'example.com##.ad',
];

describe("validate-rule's compile verdicts are the reference's Validate transformations'", () => {
  test.each(RULES)('%s', (rule) => {
    const verdicts = validatorVerdicts(rule);
    for (const [name, reference] of Object.entries(REFERENCE)) {
      const kept = reference([rule]);
      const verdict = verdicts[name as keyof typeof verdicts];
      expect(verdict.kept, name).toBe(kept.length === 1);
      if (verdict.kept) expect(verdict.rule ?? rule).toBe(kept[0]);
      else expect(verdict.reason, name).toMatch(/\w/);
    }
  });

  test('the four rules the syntax check calls valid are dropped by Validate, with a reason', () => {
    for (const rule of RULES.slice(0, 4)) {
      expect(validatorVerdicts(rule).Validate, rule).toMatchObject({ kept: false, reason: expect.any(String) });
    }
    expect(validatorVerdicts('||*.org^').ValidateAllowPublicSuffix).toEqual({ kept: true });
    expect(validatorVerdicts('192.168.1.1').ValidateAllowIp).toEqual({ kept: true, rule: '||192.168.1.1^' });
  });

  test('POST /api/validate-rule and validate-rule --json carry the same verdicts beside the syntax one', async () => {
    const { request } = testApp();
    for (const rule of RULES.slice(0, 4)) {
      const res = await request('/api/validate-rule', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rule }),
      });
      const body = await res.json();
      expect(body.valid).toBe(true);
      expect(body.validators).toEqual(validatorVerdicts(rule));
      const cli = await runCli(['validate-rule', rule, '--json']);
      expect({ ...JSON.parse(cli.stdout), duration: 'x' }).toEqual({ ...body, duration: 'x' });
      const text = await runCli(['validate-rule', rule]);
      expect(text.stdout).toMatch(/compile {2}Validate +drops it: \S/);
    }
  });
});
