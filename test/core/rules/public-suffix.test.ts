import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { rules } from 'tldts/dist/es6/src/data/trie.js';
import { PSL_RULES, PSL_TLDTS_VERSION } from '../../../src/core/rules/psl-data.js';
import { cleanHostname, hostnameProblem } from '../../../src/core/rules/rule-validity.js';
import { pslPathNames } from '../../support/psl-names.js';
// @ts-expect-error: a plain JavaScript script, without types
import { encode } from '../../../scripts/psl-data.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Every path of both tries, as it is and under one or two more labels. */
const pslNames = () => pslPathNames().flatMap((name) => [name, `a.${name}`, `a1-b.c.${name}`]);

describe('the Public Suffix List of psl-data.ts', () => {
  test('is the pinned tldts rules trie (run scripts/psl-data.js after changing tldts)', () => {
    const tldts = JSON.parse(readFileSync(`${ROOT}/node_modules/tldts/package.json`, 'utf8')).version;
    expect(PSL_TLDTS_VERSION).toBe(tldts);
    expect(PSL_RULES).toBe(encode(rules));
  });
});

describe("a clean hostname's problem, with tldts' lighter options", () => {
  const OPTIONS = [
    { allowIp: false, allowPublicSuffix: false },
    { allowIp: true, allowPublicSuffix: false },
    { allowIp: false, allowPublicSuffix: true },
    { allowIp: true, allowPublicSuffix: true },
  ];

  test("equals tldts' verdict for every name of the list, one or two labels below it, and single labels", () => {
    const singles = [
      'localhost',
      'invalidtld',
      'local',
      'lan',
      'home',
      'x',
      'a-b',
      'xn--p1ai',
      'com',
      'uk',
      'ck',
      'jp',
      'de',
    ];
    const names = [...pslNames(), ...singles].filter(cleanHostname);
    const problems = new Set<string | null>();
    for (const name of names) {
      for (const opts of OPTIONS) {
        for (const limit of [false, true]) {
          const problem = hostnameProblem(name, opts, limit, true);
          expect(problem, `${name} ${JSON.stringify(opts)} ${limit}`).toBe(hostnameProblem(name, opts, limit));
          problems.add(problem?.replace(/\S+/g, (word) => (word === name ? 'NAME' : word)) ?? null);
        }
      }
    }
    expect(names.length).toBeGreaterThan(25_000);
    // Each answer occurs, so each branch was compared.
    expect([...problems].sort()).toEqual([
      'NAME is not a known public suffix',
      'blocks the whole public suffix NAME',
      null,
    ]);
  });

  test("names the problem as tldts' check does", () => {
    const strict = { allowIp: false, allowPublicSuffix: false };
    const lenient = { allowIp: false, allowPublicSuffix: true };
    expect(hostnameProblem('co.uk', strict, false, true)).toBe('blocks the whole public suffix co.uk');
    expect(hostnameProblem('co.uk', lenient, false, true)).toBeNull();
    expect(hostnameProblem('localhost', lenient, false, true)).toBe('localhost is not a known public suffix');
    expect(hostnameProblem('localhost', strict, true, true)).toBeNull();
    expect(hostnameProblem('ads.example.co.uk', strict, false, true)).toBeNull();
  });
});
