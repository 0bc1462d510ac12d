import { describe, expect, test } from 'vitest';
import { forwardedResolve, namedLocations } from '../../src/node/configured-locations.js';
import { resolveHttpLocation } from '../../src/node/safe-reader.js';

describe('where a server compile may read', () => {
  test('an include resolves against its list to an http(s) URL, or is refused', () => {
    expect(resolveHttpLocation('more.txt', 'https://lists.example/a/list.txt')).toBe(
      'https://lists.example/a/more.txt',
    );
    expect(resolveHttpLocation('//other.example/x.txt', 'https://lists.example/list.txt')).toBe(
      'https://other.example/x.txt',
    );
    // A reference with a scheme of its own keeps it against an http(s) base: never read.
    for (const ref of ['flc-ruleset:0b1c', 'file:///etc/passwd', 'data:,||x^', 'javascript:1'])
      expect(() => resolveHttpLocation(ref, 'https://lists.example/list.txt')).toThrow(/only http:\/\/ and https:\/\//);
  });

  test("a compile in another thread resolves a list's include of a saved rule set as refused", () => {
    const resolve = forwardedResolve([['flc-ruleset:0b1c', { location: 'flc-ruleset:0b1c' }]]);
    expect(resolve('flc-ruleset:0b1c', null)).toBe('flc-ruleset:0b1c');
    expect(() => resolve('flc-ruleset:0b1c', 'https://lists.example/list.txt')).toThrow(/only http/);
  });

  test('a configuration names its sources and the lists of patterns at both levels', () => {
    const config = {
      sources: [
        { source: 'https://a.example/1.txt', exclusions_sources: ['flc-ruleset:e'], allow_sources: ['x.txt'] },
        { source: 'https://a.example/2.txt', inclusions_sources: ['flc-ruleset:i'] },
      ],
      exclusions_sources: ['flc-ruleset:top'],
      allow_sources: ['x.txt'],
    };
    expect(namedLocations(config as never).sort()).toEqual(
      [
        'https://a.example/1.txt',
        'https://a.example/2.txt',
        'flc-ruleset:e',
        'flc-ruleset:i',
        'flc-ruleset:top',
        'x.txt',
      ].sort(),
    );
  });
});
