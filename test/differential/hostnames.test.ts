import { PACKED_FORMS } from '../../src/core/engine/packed-engine.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRANSFORMATIONS } from '../../src/core/transforms/registry.js';
import { packBytes, packText, unpackLines, type PackedLines } from '../../src/core/engine/packed.js';
import type { Transformation, TransformContext } from '../../src/core/transforms/types.js';
import { runFlc } from '../support/two-clis.js';
import { referenceValidators } from '../support/reference.js';

/**
 * Hostname validity as a class: hostnames generated over letters, digits, `-`, `_`, `.`, upper
 * case and non-ASCII, in every line shape, each line judged by the reference's own Validate
 * transformations (one line at a time: the reference's list walk splices, so a whole list would
 * take quadratic time) and by every engine of flc: the string path, the packed (byte) path, the
 * WebAssembly kernel's verdicts, and the bundled CLI (`bin/run.js`, whose tldts is bundled apart).
 * FLC_HOSTNAME_LINES sets the lines per shape (100,000 by default).
 */
const LINES = Number(process.env.FLC_HOSTNAME_LINES ?? 100_000);
const REFERENCE = referenceValidators;
const VARIANTS = Object.keys(REFERENCE);

/** A small deterministic generator (xorshift32), so that a failure can be run again. */
function random(seed: number) {
  let s = seed | 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  return { next, pick };
}

const CHARS = [...'abcxyzABZ0189', '-', '-', '_', '_', 'ä', 'я', '中', 'É'];
const ENDS = ['com', 'org', 'co.uk', 'github.io', 'de', 'рф', 'uk', 'a', 'invalidtld', 'COM'];

function hostname(r: ReturnType<typeof random>): string {
  const labels: string[] = [];
  const count = 1 + Math.floor(r.next() * 3);
  for (let i = 0; i < count; i += 1) {
    const length = Math.floor(r.next() * 6);
    let label = '';
    for (let k = 0; k < length; k += 1) label += r.pick(CHARS);
    labels.push(label);
  }
  if (r.next() < 0.7) labels.push(r.pick(ENDS));
  let name = labels.join('.');
  const edge = r.next();
  if (edge < 0.05) name = `.${name}`;
  else if (edge < 0.1) name = `${name}.`;
  // A name never empty and never a comment: every line is a rule to judge.
  return /^[!#]|^$/.test(name) ? `x${name}` : name;
}

const ADDRESSES = ['0.0.0.0', '127.0.0.1', '::1', '::', '0:0:0:0:0:0:0:0', '255.255.255.255', '::ffff:0.0.0.0'];
const MODIFIERS = [
  'important',
  'third-party',
  'dnstype=AAAA',
  'badfilter',
  'client=127.0.0.1',
  'denyallow=x.com',
  'ctag=tv',
];

/** The line shapes real lists have, each from fresh hostnames. */
const SHAPES: Record<string, (r: ReturnType<typeof random>) => string> = {
  'hosts line': (r) => `${r.pick(ADDRESSES)} ${hostname(r)}`,
  'hosts line, tab, several names': (r) => `${r.pick(ADDRESSES)}\t${hostname(r)} ${hostname(r)} ${hostname(r)}`,
  'hosts line, inline comment': (r) => `${r.pick(ADDRESSES)} ${hostname(r)} # ${hostname(r)}`,
  '||name^': (r) => `||${hostname(r)}^`,
  '@@||name^': (r) => `@@||${hostname(r)}^`,
  '||name^$modifier': (r) => `||${hostname(r)}^$${r.pick(MODIFIERS)}`,
  '@@||name^$modifiers': (r) => `@@||${hostname(r)}^$${r.pick(MODIFIERS)},${r.pick(MODIFIERS)}`,
  '||*.name^ and ||name^|': (r) => (r.next() < 0.5 ? `||*.${hostname(r)}^` : `||${hostname(r)}^|`),
  'bare name': (r) => hostname(r),
};

const quiet: TransformContext = { reporting: false, removed: () => undefined };
const transformation = (name: string) => TRANSFORMATIONS.find((t) => t.name === name) as Transformation;
const packedEngine = (t: Transformation, list: PackedLines | null | undefined) => {
  if (!list || !PACKED_FORMS[t.name]) return null;
  return unpackLines(PACKED_FORMS[t.name]!(list, quiet)!).text;
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-hostnames-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(`hostname verdicts of every engine equal the reference's Validate (${LINES} lines per shape)`, () => {
  const counts: Record<string, Record<string, number>> = {};

  test.each(Object.keys(SHAPES))('%s', async (shape) => {
    const r = random(0x5eed + shape.length * 7919 + shape.charCodeAt(0));
    const lines = Array.from({ length: LINES }, () => SHAPES[shape](r));
    const text = lines.join('\n');
    const file = join(dir, `${shape.replace(/\W+/g, '-')}.txt`);
    writeFileSync(file, text);
    const count: Record<string, number> = { lines: lines.length };
    for (const variant of VARIANTS) {
      const expected = lines.flatMap((line) => REFERENCE[variant]([line]));
      count[`${variant} kept`] = expected.length;
      const t = transformation(variant);
      expect(t.apply({ text: lines }, quiet).text, `${variant}, string path`).toEqual(expected);
      const packed = packedEngine(t, packText(text));
      if (PACKED_FORMS[t.name]) expect(packed, `${variant}, packed path`).toEqual(expected);
      const bytes = new TextEncoder().encode(text);
      const inKernel = packedEngine(t, packBytes(bytes));
      if (PACKED_FORMS[t.name] && inKernel) expect(inKernel, `${variant}, kernel verdicts`).toEqual(expected);
      const config = join(dir, `${variant}.json`);
      writeFileSync(config, JSON.stringify({ name: 'h', sources: [{ source: file }], transformations: [variant] }));
      const cli = await runFlc(['-c', config, '-q'], dir);
      expect(cli.code, cli.stderr).toBe(0);
      const rules = cli.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('!'));
      expect(rules, `${variant}, bundled CLI`).toEqual(expected);
    }
    counts[shape] = count;
    console.log(`${shape}: ${JSON.stringify(count)}`);
    expect(count.lines).toBeGreaterThanOrEqual(LINES);
    // Both verdicts occur in every shape, so neither engine can pass by keeping or dropping all.
    for (const variant of VARIANTS) {
      expect(count[`${variant} kept`]).toBeGreaterThan(0);
      expect(count[`${variant} kept`]).toBeLessThan(LINES);
    }
  });
});
