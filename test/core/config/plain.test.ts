import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { plainConfiguration } from '../../../src/core/config/plain.js';
import { configurationSchema } from '../../../src/core/config/schema.js';
import { normalizeAliases } from '../../../src/core/config/aliases.js';
import { formatOf, parseConfigText } from '../../../src/core/config/read.js';
import { validateConfiguration } from '../../../src/core/config/parse.js';
import { TRANSFORMATION_NAMES } from '../../../src/core/transforms/types.js';

/** What the schema makes of `raw` (after the aliases), as JSON so that key order counts; null when it refuses. */
function bySchema(raw: unknown): string | null {
  const result = configurationSchema.safeParse(normalizeAliases(raw).value);
  return result.success ? JSON.stringify(result.data) : null;
}

function byPlain(raw: unknown): string | null {
  const config = plainConfiguration(normalizeAliases(raw).value);
  return config === null ? null : JSON.stringify(config);
}

// Values near the schema's: mostly the right kinds, sometimes the wrong one or an empty string.
const junk = fc.oneof(
  fc.constant(''),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.constant([1]),
);
const mostly = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 12, arbitrary: a }, { weight: 1, arbitrary: junk });
const text = mostly(fc.string({ minLength: 1, maxLength: 6 }));
const strings = mostly(fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }));
const validators = ['Validate', 'ValidateAllowIp', 'ValidateAllowPublicSuffix', 'ValidateAllowIpAndPublicSuffix'];
const names = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom(...TRANSFORMATION_NAMES.filter((n) => !validators.includes(n))) },
  { weight: 6, arbitrary: fc.constantFrom(...validators) },
  { weight: 2, arbitrary: fc.constantFrom('compress', 'deduplicate', 'Unknown', '') },
  { weight: 1, arbitrary: junk },
);
const transformations = mostly(fc.array(names, { maxLength: 4 }));

/** A key present with probability `p` (absent keys are left out below). */
const present = <T>(a: fc.Arbitrary<T>, p: number) =>
  fc.oneof(
    { weight: Math.round(p * 100), arbitrary: a },
    { weight: Math.round((1 - p) * 100), arbitrary: fc.constant(undefined) },
  );
// Parsers give no `undefined` values: an absent key is absent.
const defined = (c: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined));

const source = mostly(
  fc
    .record({
      source: present(text, 0.9),
      url: present(text, 0.1),
      name: present(text, 0.3),
      title: present(text, 0.1),
      type: present(fc.oneof(fc.constantFrom('adblock', 'hosts', 'Hosts'), junk), 0.3),
      transformations: present(transformations, 0.4),
      exclusions: present(strings, 0.2),
      exclusions_sources: present(strings, 0.1),
      inclusions: present(strings, 0.2),
      inclusions_sources: present(strings, 0.1),
      unknown: present(text, 0.05),
    })
    .map(defined),
);

const configuration = fc
  .record({
    name: present(text, 0.9),
    description: present(text, 0.3),
    homepage: present(text, 0.2),
    license: present(text, 0.2),
    version: present(text, 0.2),
    sources: present(mostly(fc.array(source, { maxLength: 3 })), 0.95),
    transformations: present(transformations, 0.6),
    exclusions: present(strings, 0.2),
    exclusions_sources: present(strings, 0.1),
    inclusions: present(strings, 0.2),
    inclusions_sources: present(strings, 0.1),
    onSourceError: present(fc.oneof(fc.constantFrom('fail', 'skip', 'ignore'), junk), 0.2),
    unknown: present(text, 0.05),
  })
  .map(defined);

describe('plainConfiguration', () => {
  test('accepts exactly what the schema accepts, as the schema gives it (key order included)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: configuration }, { weight: 1, arbitrary: junk }), (raw) => {
        const schema = bySchema(raw);
        expect(byPlain(raw)).toBe(schema);
        if (schema !== null) accepted += 1;
      }),
      { numRuns: 3000 },
    );
    // The generator reaches both answers often (neither side is vacuous).
    expect(accepted).toBeGreaterThan(100);
    expect(accepted).toBeLessThan(2700);
  });

  test('the bundled example configurations, in all three formats, take the plain path', async () => {
    const dir = join(import.meta.dirname, '../../../examples');
    const files = readdirSync(dir).filter((f) => /\.(json|ya?ml|toml)$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      const raw = await parseConfigText(readFileSync(join(dir, file), 'utf8'), formatOf(file), file);
      const plain = plainConfiguration(normalizeAliases(raw).value);
      expect(plain, file).not.toBeNull();
      expect(JSON.stringify(plain)).toBe(JSON.stringify(validateConfiguration(raw).config));
    }
  });

  test('leaves to the schema what it does not vouch for', () => {
    const valid = { name: 'x', sources: [{ source: 'a.txt' }] };
    expect(plainConfiguration(valid)).toEqual(valid);
    // Arrays come back as copies, as the schema's do.
    const config = plainConfiguration({ ...valid, exclusions: ['a'] })!;
    expect(config.sources).not.toBe(valid.sources);
    for (const odd of [
      { ...valid, description: undefined },
      { ...valid, sources: [{ source: 'a.txt', name: undefined }] },
      Object.assign(Object.create({ inherited: 1 }), valid),
      { ...valid, transformations: ['Validate', 'ValidateAllowIp'] },
      { ...valid, transformations: ['Validate'], sources: [{ source: 'a.txt', transformations: ['ValidateAllowIp'] }] },
      JSON.parse('{"name": "x", "sources": [{"source": "a.txt"}], "__proto__": 1}'),
    ]) {
      expect(plainConfiguration(odd)).toBeNull();
    }
  });
});
