import { describe, expect, test } from 'vitest';
import { namedLocations } from '../../src/node/configured-locations.js';

describe('the locations a configuration names', () => {
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
