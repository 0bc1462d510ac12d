import { describe, expect, test } from 'vitest';
import { domainToASCII } from 'node:url';
import fc from 'fast-check';
import * as tldts from 'tldts';
import { cleanHostname, hostnameProblem } from '../../../src/core/rules/rule-validity.js';
import { domainToAscii } from '../../../src/core/transforms/convert-to-ascii.js';

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
