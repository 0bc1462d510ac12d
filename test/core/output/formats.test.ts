import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compile } from '../../../src/core/pipeline/compile.js';
import { FORMATS, OUTPUT_FORMATS, type OutputFormat } from '../../../src/core/output/formats.js';
import { hostsAddresses } from '../../../src/core/output/format.js';
import { InputError } from '../../../src/core/errors/index.js';
import { dnsRule } from '../../../src/core/rules/dns-rule.js';
import { memoryReader } from '../../support/memory-reader.js';

// test/fixtures/formats/input.txt holds every rule shape a list has; each case's folder holds the
// list that format writes (expected.txt) and every rule it leaves out or narrows (removed.txt:
// line, code, reason).
const FIXTURES = resolve(import.meta.dirname, '../../fixtures/formats');
const input = readFileSync(join(FIXTURES, 'input.txt'), 'utf8');
const at = new Date('2024-05-06T07:08:09.000Z');

const CASES: [string, OutputFormat, string[]?][] = [
  ...OUTPUT_FORMATS.map((f): [string, OutputFormat] => [f, f]),
  ['hosts-dual', 'hosts', ['0.0.0.0', '::']],
];

async function compiled(format: OutputFormat, addresses?: string[]) {
  return compile(
    { name: 'Every rule shape', sources: [{ source: 'input.txt' }] },
    {
      reader: memoryReader({ '/input.txt': input }),
      compiler: 'flc v0',
      now: () => at,
      format,
      hostsAddresses: addresses,
      report: true,
    },
  );
}

describe('output formats over a list with every rule shape', () => {
  test.each(CASES)('%s', async (name, format, addresses) => {
    const result = await compiled(format, addresses);
    const dir = join(FIXTURES, name);
    expect(`${result.lines.join('\n')}\n`).toBe(readFileSync(join(dir, 'expected.txt'), 'utf8'));
    const removed = result.report!.removed.map((r) => `${r.line}\t${r.code}\t${r.text}\t${r.reason}`);
    expect(`${removed.join('\n')}\n`).toBe(readFileSync(join(dir, 'removed.txt'), 'utf8'));
    // The bytes written are the lines; every rule line is counted.
    expect(new TextDecoder().decode(result.bytes())).toBe(result.lines.join('\n'));
    expect(result.ruleCount).toBeGreaterThan(0);
  });

  test('adblock output is the list as compiled, and nothing is reported for it', async () => {
    const result = await compiled('adblock');
    expect(result.lines.slice(6)).toEqual(['!', '! Source: input.txt', '!', ...input.trim().split('\n')]);
    expect(result.report!.removed).toEqual([]);
  });

  test('nothing is dropped without a reason: each rule of the list is written or reported', async () => {
    for (const format of OUTPUT_FORMATS.filter((f) => f !== 'adblock')) {
      const result = await compiled(format);
      const reported = new Set(result.report!.removed.map((r) => r.line));
      const rules = result.report!.kept.map((k) => k.line);
      // A rule that is not reported left its names in the output.
      const written = result.lines.join('\n');
      for (const [i, line] of input.split('\n').entries()) {
        if (!rules.includes(i + 1) || reported.has(i + 1)) continue;
        const rule = dnsRule(line);
        expect(rule?.kind, `${format}: line ${i + 1} ${line}`).toMatch(/^(block|allow)$/);
        for (const name of rule!.names) expect(written, `${format}: line ${i + 1} ${line}`).toContain(name);
      }
    }
  });

  test('the counts of left-out and narrowed rules go to the diagnostics (stderr)', async () => {
    const result = await compiled('hosts');
    const messages = result.diagnostics.map((d) => `${d.code}: ${d.message}`);
    expect(messages).toEqual([
      expect.stringMatching(
        /^unsupported-in-format: 20 rule\(s\) cannot be expressed in hosts format and were left out \(/,
      ),
      expect.stringMatching(
        /^unsupported-in-format: 2 rule\(s\) left out of the hosts output: a rule of a higher rank overrides/,
      ),
      expect.stringMatching(
        /^narrowed-in-format: 11 rule\(s\) for a domain and its subdomains written for the domain alone/,
      ),
    ]);
  });

  test('each format has its example and what it cannot express (the docs list them)', () => {
    const docs = readFileSync(resolve(import.meta.dirname, '../../../docs/configuration.md'), 'utf8');
    for (const spec of Object.values(FORMATS)) {
      expect(docs).toContain(`\`${spec.name}\``);
      for (const example of spec.example.split(' + ')) expect(docs).toContain(example);
    }
  });
});

describe('--hosts-address', () => {
  test.each([
    [['0.0.0.0,::'], ['0.0.0.0', '::']],
    [
      ['127.0.0.1', '::1', '127.0.0.1'],
      ['127.0.0.1', '::1'],
    ],
  ])('%j', (values, expected) => {
    expect(hostsAddresses(values)).toEqual(expected);
  });

  test.each([[['0.0.0.0,localhost']], [['']], [['1.2.3']]])('%j is refused', (values) => {
    expect(() => hostsAddresses(values)).toThrow(InputError);
  });
});
