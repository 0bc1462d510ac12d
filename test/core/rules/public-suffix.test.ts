import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { exceptions, rules } from 'tldts/dist/es6/src/data/trie.js';
import { PSL_TLDTS_VERSION } from '../../../src/core/rules/psl-data.js';
import {
  pslTries,
  publicSuffixKind,
  NOT_OWN_SUFFIX,
  OWN_KNOWN_SUFFIX,
  OWN_UNKNOWN_SUFFIX,
} from '../../../src/core/rules/public-suffix.js';
import { cleanHostname, cleanHostnameProblem, tldtsHostnameProblem } from '../../../src/core/rules/rule-validity.js';
import { pslPathNames } from '../../support/psl-names.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Every path of both tries, as it is and under one or two more labels. */
const pslNames = () => pslPathNames().flatMap((name) => [name, `a.${name}`, `a1-b.c.${name}`]);

describe('the Public Suffix List of psl-data.ts', () => {
  test('is the pinned tldts trie, node for node (run scripts/psl-data.js after changing tldts)', () => {
    const tldts = JSON.parse(readFileSync(`${ROOT}/node_modules/tldts/package.json`, 'utf8')).version;
    expect(PSL_TLDTS_VERSION).toBe(tldts);
    const ours = pslTries();
    // tldts shares equal nodes between parents; compared as plain data, they are equal.
    expect(ours.rules).toEqual(JSON.parse(JSON.stringify(rules)));
    expect(ours.exceptions).toEqual(JSON.parse(JSON.stringify(exceptions)));
  });
});

describe("a clean hostname's problem, decided without tldts", () => {
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
    const kinds = new Set<number>();
    for (const name of names) {
      kinds.add(publicSuffixKind(name));
      for (const opts of OPTIONS) {
        for (const limit of [false, true]) {
          expect(cleanHostnameProblem(name, opts, limit), `${name} ${JSON.stringify(opts)} ${limit}`).toBe(
            tldtsHostnameProblem(name, opts, limit),
          );
        }
      }
    }
    expect(names.length).toBeGreaterThan(25_000);
    // Each answer occurs, so each branch was compared.
    expect([...kinds].sort()).toEqual([NOT_OWN_SUFFIX, OWN_KNOWN_SUFFIX, OWN_UNKNOWN_SUFFIX]);
  });

  test("names the problem as tldts' check does", () => {
    const strict = { allowIp: false, allowPublicSuffix: false };
    const lenient = { allowIp: false, allowPublicSuffix: true };
    expect(cleanHostnameProblem('co.uk', strict, false)).toBe('blocks the whole public suffix co.uk');
    expect(cleanHostnameProblem('co.uk', lenient, false)).toBeNull();
    expect(cleanHostnameProblem('localhost', lenient, false)).toBe('localhost is not a known public suffix');
    expect(cleanHostnameProblem('localhost', strict, true)).toBeNull();
    expect(cleanHostnameProblem('ads.example.co.uk', strict, false)).toBeNull();
  });
});
