import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { domainToASCII } from 'node:url';
import fc from 'fast-check';
import * as tldts from 'tldts';
import { cleanHostname, hostnameProblem } from '../../../src/core/rules/rule-validity.js';
import {
  etcHostsHostnames,
  isEtcHostsRule,
  isJustDomain,
  isJustDomainByRegex,
  simpleHostsLineHostname,
} from '../../../src/core/rules/rule-text.js';
import { domainToAscii } from '../../../src/core/transforms/convert-to-ascii.js';
import { ALL_TRICKY } from '../../support/tricky-lines.js';

const CORPUS = resolve(import.meta.dirname, '../../../../shared/corpus');
const corpusLines = [
  'adblock-hagezi-light.txt',
  'adguard-dns-filter-2019.txt',
  'urlhaus-filter-online.txt',
  'easylist.txt',
]
  .flatMap((f) => readFileSync(`${CORPUS}/${f}`, 'utf8').split(/\r?\n/))
  .filter((_, i) => i % 3 === 0);
const runs = Number(process.env.FC_RUNS ?? 2000);

const OPTIONS = [
  { allowIp: false, allowPublicSuffix: false },
  { allowIp: true, allowPublicSuffix: false },
  { allowIp: false, allowPublicSuffix: true },
  { allowIp: true, allowPublicSuffix: true },
];

const hostChar = fc.constantFrom(...'abcxyz019-.'.split(''));
const hostLike = fc.array(hostChar, { minLength: 1, maxLength: 20 }).map((cs) => cs.join(''));
const knownSuffixes = [
  'com',
  'co.uk',
  'github.io',
  'kawasaki.jp',
  'city.kawasaki.jp',
  'ck',
  'www.ck',
  'appspot.com',
  'uk',
  'invalidtld',
];

describe('fast paths agree with the full reference logic', () => {
  test("a clean hostname's problem: tldts' lighter options decide as its defaults, on generated names", () => {
    const host = fc.tuple(hostLike, fc.constantFrom(...knownSuffixes)).map(([h, s]) => `${h}.${s}`);
    fc.assert(
      fc.property(fc.oneof(host, hostLike, fc.constantFrom(...knownSuffixes)), (h) => {
        if (!cleanHostname(h)) return;
        for (const opts of OPTIONS) {
          for (const limit of [false, true])
            expect(hostnameProblem(h, opts, limit, true)).toBe(hostnameProblem(h, opts, limit));
        }
      }),
      { numRuns: runs },
    );
  });

  test('a clean hostname never parses as an IP', () => {
    fc.assert(
      fc.property(hostLike, (h) => {
        if (cleanHostname(h)) expect(tldts.parse(h).isIp).toBe(false);
      }),
      { numRuns: runs },
    );
  });

  test('isJustDomain equals the reference regular expression', () => {
    const samples = [
      ...ALL_TRICKY,
      ...corpusLines.slice(0, 5000),
      'a.b',
      'a.',
      '.',
      'a-.b',
      `${'a'.repeat(63)}.b`,
      `${'a'.repeat(64)}.b`,
      `${'a.'.repeat(127)}b`,
    ];
    for (const s of samples) expect(isJustDomain(s), s).toBe(isJustDomainByRegex(s));
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...'aZ09-._'.split('')), { maxLength: 70 }).map((c) => c.join('')),
        (s) => {
          expect(isJustDomain(s)).toBe(isJustDomainByRegex(s));
        },
      ),
      { numRuns: runs },
    );
  });

  test('hosts hostnames equal a whitespace split after the address', () => {
    const reference = (line: string) => {
      let rule = line.trim();
      if (rule.indexOf('#') > 0) rule = rule.substring(0, rule.indexOf('#'));
      return rule.trim().split(/\s+/).slice(1);
    };
    const ws = fc.constantFrom(' ', '\t', '\u00a0', '\u2003', '\u3000', '\ufeff', 'x', '#', 'a.b');
    fc.assert(
      fc.property(
        fc.array(ws, { maxLength: 12 }).map((p) => `0.0.0.0${p.join('')}`),
        (line) => {
          expect(etcHostsHostnames(line)).toEqual(reference(line));
        },
      ),
      { numRuns: runs },
    );
  });

  test('the simple hosts-line fast path agrees with the hosts regex and name split', () => {
    const tail = fc
      .array(fc.constantFrom('a', '.', '-', ' ', '\t', '#', '\u00a0', 'ü', '1'), { maxLength: 12 })
      .map((c) => c.join(''));
    const line = fc
      .tuple(fc.constantFrom('0.0.0.0 ', '127.0.0.1 ', '0.0.0.0', '0.0.0.0  ', '::1 '), tail)
      .map(([a, b]) => a + b);
    fc.assert(
      fc.property(line, (l) => {
        const fast = simpleHostsLineHostname(l);
        if (fast !== null) {
          expect(isEtcHostsRule(l)).toBe(true);
          expect(etcHostsHostnames(l)).toEqual([fast]);
        }
      }),
      { numRuns: runs },
    );
    expect(simpleHostsLineHostname('0.0.0.0 ads.example.com')).toBe('ads.example.com');
  });

  test('domainToAscii equals node:url domainToASCII', () => {
    const parts = fc.constantFrom(
      'пример',
      'рф',
      'münchen',
      'de',
      'a',
      '%41',
      '/',
      ':80',
      '@',
      '?',
      '#',
      '[',
      '.',
      'xn--',
      'ß',
      '\u200d',
      'Ⓐ',
    );
    fc.assert(
      fc.property(
        fc.array(parts, { minLength: 1, maxLength: 6 }).map((p) => p.join('')),
        (d) => {
          expect(domainToAscii(d)).toBe(domainToASCII(d));
        },
      ),
      { numRuns: runs },
    );
  });
});
