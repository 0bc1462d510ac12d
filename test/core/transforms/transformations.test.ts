import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { TRANSFORMATIONS, planTransformations } from '../../../src/core/transforms/registry.js';
import type { TransformContext, TransformationName } from '../../../src/core/transforms/types.js';
import { ALL_TRICKY } from '../../support/tricky-lines.js';

const quiet: TransformContext = { reporting: false, removed: () => undefined };
const byName = (name: TransformationName) => TRANSFORMATIONS.find((t) => t.name === name)!;
const run = (name: TransformationName, text: string[]) => byName(name).apply({ text }, quiet).text;

describe('transformations', () => {
  test('the registry holds the 13 transformations in the fixed execution order', () => {
    expect(TRANSFORMATIONS.map((t) => t.name)).toEqual([
      'ConvertToAscii',
      'TrimLines',
      'RemoveComments',
      'Compress',
      'RemoveModifiers',
      'InvertAllow',
      'Validate',
      'ValidateAllowIp',
      'ValidateAllowPublicSuffix',
      'ValidateAllowIpAndPublicSuffix',
      'Deduplicate',
      'RemoveEmptyLines',
      'InsertFinalNewLine',
    ]);
    expect(planTransformations(['InsertFinalNewLine', 'Compress', 'TrimLines']).map((t) => t.name)).toEqual([
      'TrimLines',
      'Compress',
      'InsertFinalNewLine',
    ]);
  });

  test.each([
    ['TrimLines', ['  a \t', '\tb', ' '], ['a', 'b', '']],
    ['RemoveComments', ['! c', '# c', '#', '####', '#x', 'rule'], ['#x', 'rule']],
    ['RemoveEmptyLines', ['a', '', '  ', 'b'], ['a', 'b']],
    ['InsertFinalNewLine', ['a'], ['a', '']],
    ['InsertFinalNewLine', ['a', ' '], ['a', ' ']],
    ['InsertFinalNewLine', [], ['']],
    [
      'InvertAllow',
      ['||a.com^', '@@||b.com^', '! c', '0.0.0.0 c.com', ''],
      ['@@||a.com^', '@@||b.com^', '! c', '0.0.0.0 c.com', ''],
    ],
    ['ConvertToAscii', ['||пример.рф^', '! пример.рф'], ['||xn--e1afmkfd.xn--p1ai^', '! пример.рф']],
    [
      'RemoveModifiers',
      [' ||a.com^$third-party,important ', '||b.com^$popup', '||c.com^$domain=x\\,y'],
      ['||a.com^$important', '||b.com^', '||c.com^$domain=x,y'],
    ],
    [
      'Compress',
      ['0.0.0.0 a.com b.com', 'sub.a.com', '||a.com^', '||c.com^$important', 'c.com'],
      ['||a.com^', '||b.com^', '||c.com^$important', '||c.com^'],
    ],
    ['Deduplicate', ['! about a', 'a', 'b', '! about a again', 'a'], ['b', '! about a again', 'a']],
    ['Validate', ['! about x', '||x.com^$media', '||ok.com^', '||com^', '||1.2.3.4^'], ['||ok.com^']],
    [
      'ValidateAllowIp',
      ['1.2.3.4', '||1.2.3.4^', '192.168.1.', '||1.2^'],
      ['||1.2.3.4^', '||1.2.3.4^', '||192.168.1.'],
    ],
    ['ValidateAllowPublicSuffix', ['||com^', '||notarealtld^', '||co.uk^'], ['||com^', '||co.uk^']],
    ['ValidateAllowIpAndPublicSuffix', ['||com^', '||1.2.3.4^'], ['||com^', '||1.2.3.4^']],
  ] as [TransformationName, string[], string[]][])('%s: %j', (name, input, expected) => {
    expect(run(name, input)).toEqual(expected);
  });

  const line = fc.oneof(
    fc.constantFrom(...ALL_TRICKY),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );
  const list = fc.array(line, { maxLength: 60 });
  const runs = Number(process.env.FC_RUNS ?? 300);

  test.each(TRANSFORMATIONS.map((t) => [t.name]))('%s never throws on random or hostile lines', (name) => {
    fc.assert(
      fc.property(list, (text) => void run(name as TransformationName, text)),
      { numRuns: runs },
    );
  });

  test.each([
    'TrimLines',
    'RemoveComments',
    'RemoveEmptyLines',
    'Deduplicate',
    'InsertFinalNewLine',
    'ConvertToAscii',
    'Validate',
  ] as const)('%s is idempotent', (name) => {
    fc.assert(
      fc.property(list, (text) => {
        const once = run(name, text);
        expect(run(name, once)).toEqual(once);
      }),
      { numRuns: runs },
    );
  });

  test('the report names every removed line with its transformation reason', () => {
    const removed: string[] = [];
    const ctx: TransformContext = {
      reporting: true,
      removed: (l, _o, code, reason) => void removed.push(`${code}:${l}:${reason}`),
    };
    byName('Validate').apply({ text: ['! about', '||x.com^$media', '||ok.com^'] }, ctx);
    expect(removed).toEqual([
      'invalid-rule:||x.com^$media:unsupported modifier $media',
      'comment-above-invalid:! about:directly above a removed rule',
    ]);
  });
});
