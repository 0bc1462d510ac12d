import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flcOutput, referenceOutput } from '../support/reference.js';
import type { Configuration } from '../../src/core/config/schema.js';
import { validateConfiguration } from '../../src/core/config/parse.js';

/**
 * Every divergence from @adguard/hostlist-compiler listed in docs/compatibility.md,
 * shown by running both compilers on the same input.
 */
let dir: string;
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-divergence-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('documented divergences', () => {
  test('names of Object.prototype members are ordinary rules (Deduplicate)', async () => {
    const config: Configuration = {
      name: 'D',
      sources: [{ source: file('proto.txt', 'constructor\ntoString\n||example.org^\nconstructor') }],
      transformations: ['Deduplicate'],
    };
    const reference = await referenceOutput(config);
    const ours = await flcOutput(config);
    expect(ours.filter((l) => l === 'constructor')).toHaveLength(1);
    expect(ours).toContain('toString');
    expect(reference).not.toContain('toString');
    expect(reference.filter((l) => l === 'constructor')).toHaveLength(0);
  });

  test('names of Object.prototype members are ordinary hostnames (Compress)', async () => {
    const config: Configuration = {
      name: 'D',
      sources: [
        { source: file('proto-hosts.txt', '0.0.0.0 constructor\n0.0.0.0 ads.hasOwnProperty\n0.0.0.0 x.valueOf') },
      ],
      transformations: ['Compress'],
    };
    const reference = await referenceOutput(config);
    const ours = await flcOutput(config);
    expect(ours).toEqual(expect.arrayContaining(['||constructor^', '||ads.hasOwnProperty^', '||x.valueOf^']));
    expect(reference).not.toContain('||constructor^');
  });

  test('a lone @@ does not crash RemoveModifiers or the IP-normalising validators', async () => {
    for (const t of ['RemoveModifiers', 'ValidateAllowIp', 'ValidateAllowIpAndPublicSuffix'] as const) {
      const config: Configuration = {
        name: 'D',
        sources: [{ source: file('atat.txt', '||a.example^\n@@\n||b.example^') }],
        transformations: [t],
      };
      await expect(referenceOutput(config)).rejects.toThrow();
      const ours = await flcOutput(config);
      expect(ours).toContain('||a.example^');
      expect(ours).toContain('||b.example^');
      expect(ours.includes('@@')).toBe(t === 'RemoveModifiers');
    }
  });

  test('a hosts line without a hostname does not crash Compress; it stays as it is', async () => {
    const config: Configuration = {
      name: 'D',
      sources: [{ source: file('nohost.txt', '0.0.0.0 ok.example\n1.1.1.1  #only a comment\n0.0.0.0 two.example') }],
      transformations: ['Compress'],
    };
    await expect(referenceOutput(config)).rejects.toThrow();
    const ours = await flcOutput(config);
    expect(ours).toEqual(expect.arrayContaining(['||ok.example^', '1.1.1.1  #only a comment', '||two.example^']));
  });

  test('an !#include cycle fails with a message naming the cycle', async () => {
    const a = file('cycle-a.txt', '||a.example^\n!#include cycle-b.txt');
    file('cycle-b.txt', '||b.example^\n!#include cycle-a.txt');
    await expect(flcOutput({ name: 'D', sources: [{ source: a }] })).rejects.toThrow(
      /!#include cycle: .*cycle-a\.txt -> .*cycle-b\.txt -> .*cycle-a\.txt/,
    );
  });

  test('an absolute !#include path in a local list is taken as absolute', async () => {
    mkdirSync(join(dir, 'nested'), { recursive: true });
    const target = file('abs-target.txt', '||abs.example^');
    const main = file('nested/main.txt', `!#include ${target}`);
    await expect(referenceOutput({ name: 'D', sources: [{ source: main }] })).rejects.toThrow();
    expect(await flcOutput({ name: 'D', sources: [{ source: main }] })).toContain('||abs.example^');
  });

  test('a line break in a header field is a configuration error', async () => {
    const list = file('header.txt', '||kept.example^');
    const config = { name: 'D\n||injected.example^', sources: [{ source: list }] };
    // The reference's list, written out, has the field's second line as a rule of its own.
    expect((await referenceOutput(config)).join('\n').split('\n')).toContain('||injected.example^');
    for (const bad of [
      config,
      { name: 'D', description: 'a\r\n||x^', sources: [{ source: list }] },
      { name: 'D', sources: [{ source: list, name: 'S\n||x^' }] },
      ...['\u2028', '\u2029', '\u0085', '\v', '\f', '\u001c', '\u0000'].map((c) => ({
        name: `D${c}||x^`,
        sources: [{ source: list }],
      })),
    ])
      expect(() => validateConfiguration(bad)).toThrow(/must be one line \(no line break or control character\)/);
    expect(() => validateConfiguration({ name: 'D\tE', sources: [{ source: list }] })).not.toThrow();
  });
});

describe("flc's own configuration keys (docs/compatibility.md)", () => {
  test.each([
    ['format', { format: 'dnsmasq' }],
    ['allow', { allow: ['example.org'] }],
    ['allow_sources', { allow_sources: ['allow.txt'] }],
    ['a source allow', { sources: [{ source: 'SOURCE', allow: ['example.org'] }] }],
  ])('the reference rejects %s; without it both compile the same list', async (_, extra) => {
    const source = file('own-keys.txt', '||example.org^\n0.0.0.0 a.example.org\n||keep.example^');
    const config = { name: 'D', sources: [{ source }], ...JSON.parse(JSON.stringify(extra).replace('SOURCE', source)) };
    await expect(referenceOutput(config)).rejects.toThrow(/Failed to validate configuration/);
    const plain = { name: 'D', sources: [{ source }] };
    expect(await flcOutput(plain)).toEqual(await referenceOutput(plain));
  });
});
