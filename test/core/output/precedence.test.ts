import { describe, expect, test } from 'vitest';
import { Overrides, rank } from '../../../src/core/output/precedence.js';
import { type DomainRule, dnsRule } from '../../../src/core/rules/dns-rule.js';

const rule = (text: string) => dnsRule(text) as DomainRule;

function overrides(...texts: string[]) {
  const o = new Overrides();
  for (const text of texts) o.add(rule(text), text);
  return o;
}

describe('AdGuard precedence', () => {
  test('ranks: block < exception < important block < important exception', () => {
    expect(['||a.b^', '@@||a.b^', '||a.b^$important', '@@||a.b^$important'].map((t) => rank(rule(t)))).toEqual([
      0, 1, 2, 3,
    ]);
  });

  test.each([
    // [overriding rules, the rule asked about, its name, the overriding rule or null]
    [['@@||example.org^'], '||ads.example.org^', 'ads.example.org', '@@||example.org^'],
    [['@@||example.org^'], '0.0.0.0 example.org', 'example.org', '@@||example.org^'],
    [['@@||example.org^'], '||notexample.org^', 'notexample.org', null],
    [['@@||example.org^'], '||org^', 'org', null],
    [['@@||org^'], '||a.b.example.org^', 'a.b.example.org', '@@||org^'],
    [['@@||localhost^'], '0.0.0.0 localhost', 'localhost', '@@||localhost^'],
    [['@@||example.org^'], '||ads.example.org^$important', 'ads.example.org', null],
    [['@@||example.org^$important'], '||ads.example.org^$important', 'ads.example.org', '@@||example.org^$important'],
    [['||example.org^$important'], '@@||sub.example.org^', 'sub.example.org', '||example.org^$important'],
    [['||sub.example.org^$important'], '@@||example.org^', 'example.org', null],
    [['@@|a.example.org^'], '0.0.0.0 a.example.org', 'a.example.org', '@@|a.example.org^'],
    [['@@|a.example.org^'], '||a.example.org^', 'a.example.org', null],
    [['||x.example.org^$important', '@@||y.example.org^'], '||z.example.org^', 'z.example.org', null],
  ])('%j over %s', (rules, asked, name, expected) => {
    expect(overrides(...rules).overriding(rule(asked), name)).toBe(expected);
  });
});
