import { describe, expect, test } from 'vitest';
import { parseConfigText, validateConfiguration, quickConfiguration } from '../../../src/core/config/parse.js';
import { ConfigError } from '../../../src/core/errors/index.js';

const ok = { name: 'L', sources: [{ source: 'a.txt' }] };
const failure = (raw: unknown) => {
  try {
    validateConfiguration(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
};

describe('configuration schema', () => {
  test('accepts the reference keys', () => {
    const full = {
      ...ok,
      description: 'd',
      homepage: 'h',
      license: 'l',
      version: '1',
      sources: [
        {
          source: 'a',
          name: 'A',
          type: 'hosts',
          transformations: ['Compress'],
          exclusions: ['x'],
          exclusions_sources: ['e'],
          inclusions: ['i'],
          inclusions_sources: ['j'],
        },
      ],
      transformations: ['Validate', 'Deduplicate'],
      exclusions: [],
      exclusions_sources: [],
      inclusions: [],
      inclusions_sources: [],
    };
    expect(validateConfiguration(full).config).toEqual(full);
  });

  test.each([
    [{ ...ok, extra: 1 }, /extra: unknown key|unknown key "extra"/],
    [{ ...ok, sources: [{ source: 'a', colour: 'red' }] }, /sources\[0\]: unknown key "colour"/],
    [{ ...ok, sources: [] }, /sources: Too small/],
    [{ name: 'L' }, /sources: is required/],
    [{ sources: [{ source: 'a' }] }, /name: is required/],
    [{ ...ok, name: 5 }, /name: Invalid input: expected string, received number/],
    [
      { ...ok, transformations: ['Validate', 'ValidateAllowIp'] },
      /transformations: validation transformations cannot be combined: Validate, ValidateAllowIp/,
    ],
    [
      { ...ok, sources: [{ source: 'a', transformations: ['Validate'] }], transformations: ['ValidateAllowIp'] },
      /sources\[0\]\.transformations: validation transformations cannot be used at both source and top level/,
    ],
    [
      { ...ok, transformations: ['Frobnicate'] },
      /transformations\[0\]: unknown transformation "Frobnicate"\. Known: RemoveComments, /,
    ],
    [{ ...ok, sources: [{ source: 'a', type: 'json' }] }, /sources\[0\]\.type/],
    [{ ...ok, sources: [{ source: '' }] }, /sources\[0\]\.source/],
  ])('rejects %j naming the field', (raw, message) => {
    expect(failure(raw)).toMatch(message);
  });

  test('accepts the sample aliases with deprecation warnings', () => {
    const { config, warnings } = validateConfiguration({
      name: 'L',
      sources: [{ url: 'a.txt', title: 'A', transformations: ['removecomments'] }],
      transformations: ['deduplicate', 'Validate'],
    });
    expect(config).toEqual({
      name: 'L',
      sources: [{ source: 'a.txt', name: 'A', transformations: ['RemoveComments'] }],
      transformations: ['Deduplicate', 'Validate'],
    });
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(/deprecated/);
  });

  test.each([
    ['json', '{"name": "L",', /JSON syntax error/],
    ['yaml', 'name: L\nsources: [a\n  b: c', /YAML syntax error/],
    ['toml', 'name = "L"\nsources = [', /TOML syntax error/],
  ] as const)('%s syntax errors say so', async (format, text, message) => {
    await expect(parseConfigText(text, format)).rejects.toThrow(message);
  });

  test('YAML and TOML documents give the same configuration', async () => {
    const yaml = await parseConfigText('name: L\nsources:\n  - source: a.txt\n', 'yaml');
    const toml = await parseConfigText('name = "L"\n[[sources]]\nsource = "a.txt"\n', 'toml');
    expect(validateConfiguration(yaml).config).toEqual(ok);
    expect(validateConfiguration(toml).config).toEqual(ok);
  });

  test('quick mode is the reference CLI configuration', () => {
    expect(quickConfiguration(['x'], 'hosts')).toEqual({
      name: 'Blocklist',
      sources: [{ source: 'x', type: 'hosts' }],
      transformations: ['RemoveComments', 'Deduplicate', 'Compress', 'Validate', 'TrimLines', 'InsertFinalNewLine'],
    });
  });
});

describe("flc's own keys: format, allow, allow_sources", () => {
  test('are accepted at their levels (format at the top only)', () => {
    const config = {
      ...ok,
      format: 'rpz',
      allow: ['example.org', 'пример.рф', 'xn--e1afmkfd.xn--p1ai', 'trailing.example.'],
      allow_sources: ['trusted.txt'],
      sources: [{ source: 'a', allow: ['a.example'], allow_sources: ['b.txt'] }],
    };
    expect(validateConfiguration(config).config).toEqual(config);
  });

  test.each([
    [{ ...ok, format: 'bind' }, /format: Invalid option: expected one of "adblock"\|"hosts"\|/],
    [
      { ...ok, allow: ['*.example.org'] },
      /allow\[0\]: "\*\.example\.org" is not a domain name \(an entry covers its subdomains/,
    ],
    [{ ...ok, allow: ['||example.org^'] }, /allow\[0\]: "\|\|example\.org\^" is not a domain name/],
    [
      { ...ok, sources: [{ source: 'a', allow: ['ex ample.org'] }] },
      /sources\[0\]\.allow\[0\]: "ex ample\.org" is not/,
    ],
    [{ ...ok, sources: [{ source: 'a', format: 'hosts' }] }, /sources\[0\]: unknown key "format"/],
    [{ ...ok, alow: ['a.example'] }, /unknown key "alow" \(did you mean "allow"\?\)/],
  ])('%j is refused', (raw, message) => {
    expect(failure(raw)).toMatch(message);
  });
});
