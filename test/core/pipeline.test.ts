import { describe, expect, test } from 'vitest';
import { compile } from '../../src/core/pipeline/compile.js';
import type { CompileEvent } from '../../src/core/pipeline/events.js';
import { AbortedError } from '../../src/core/errors/aborted-error.js';
import { SourceError } from '../../src/core/errors/source-error.js';
import { memoryReader } from '../support/memory-reader.js';

const reader = () =>
  memoryReader({
    '/a.txt': '! list a\n0.0.0.0 ads.example.com\n0.0.0.0 sub.ads.example.com\n||bad.example^$media\n||keep.example^',
    '/b.txt': '||keep.example^\nexample.org##.ad',
  });
const at = new Date('2026-01-02T03:04:05.678Z');

describe('compile', () => {
  test('source blocks, header, fixed order, and the compile time from the clock', async () => {
    const result = await compile(
      { name: 'L', description: 'D', sources: [{ source: 'a.txt', name: 'A', transformations: ['Compress'] }, { source: 'b.txt' }], transformations: ['Validate', 'Deduplicate', 'InsertFinalNewLine'] },
      { reader: reader(), compiler: 'flc v9', now: () => at },
    );
    expect(result.lines).toEqual([
      '!', '! Title: L', '! Description: D', '! Last modified: 2026-01-02T03:04:05.678Z', '!', '! Compiled by flc v9', '!',
      '!', '! Source name: A', '! Source: a.txt', '!', '! list a', '||ads.example.com^',
      '!', '! Source: b.txt', '!', '||keep.example^', '',
    ]);
    expect(result.ruleCount).toBe(2);
  });

  test('events: sources and every transformation with counts', async () => {
    const events: CompileEvent[] = [];
    await compile({ name: 'L', sources: [{ source: 'a.txt', transformations: ['Compress'] }], transformations: ['Deduplicate'] }, { reader: reader(), compiler: 'x', onEvent: (e) => events.push(e) });
    const types = events.map((e) => (e.type.startsWith('transformation') ? `${e.type}:${(e as { name: string }).name}` : e.type));
    expect(types).toEqual([
      'source:start', 'source:complete', 'transformation:start:Compress', 'transformation:complete:Compress', 'progress',
      'transformation:start:Deduplicate', 'transformation:complete:Deduplicate', 'progress',
    ]);
    const compress = events.find((e) => e.type === 'transformation:complete') as Extract<CompileEvent, { type: 'transformation:complete' }>;
    expect([compress.inputCount, compress.outputCount]).toEqual([5, 4]);
  });

  test('report: every removed line with its source, line number and reason', async () => {
    const result = await compile(
      { name: 'L', sources: [{ source: 'a.txt', transformations: ['Compress'] }], transformations: ['Validate'], exclusions: ['keep'] },
      { reader: reader(), compiler: 'x', report: true },
    );
    const removed = result.report!.removed.map((r) => `${r.transformation}|${r.code}|${r.source}:${r.line}|${r.text}|${r.reason}`);
    expect(removed).toEqual([
      'Compress|redundant-hostname|/a.txt:3|||sub.ads.example.com^|sub.ads.example.com is covered by ||ads.example.com^',
      'Exclusions|excluded|/a.txt:5|||keep.example^|matches exclusion keep',
      'Validate|invalid-rule|/a.txt:4|||bad.example^$media|unsupported modifier $media',
    ]);
    expect(result.report!.transformations.map((t) => `${t.scope}:${t.name}:${t.inputCount}->${t.outputCount}`)).toEqual([
      '0:Compress:5->4', 'global:Exclusions:7->6', 'global:Validate:6->5',
    ]);
  });

  test('a failed source fails the compile naming it; onSourceError skip leaves it out', async () => {
    const config = { name: 'L', sources: [{ source: 'a.txt' }, { source: 'missing.txt' }] };
    const error = await compile(config, { reader: reader(), compiler: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toBe('Source missing.txt failed: no such file: /missing.txt');
    const skipped = await compile({ ...config, onSourceError: 'skip' }, { reader: reader(), compiler: 'x' });
    expect(skipped.lines.join('\n')).not.toContain('missing.txt');
    expect(skipped.diagnostics.map((d) => d.code)).toEqual(['source-skipped']);
  });

  test('an aborted compile stops with AbortedError', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(compile({ name: 'L', sources: [{ source: 'a.txt' }] }, { reader: reader(), compiler: 'x', signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
  });

  test.each([
    ['hosts', ['# Title: L', '0.0.0.0 keep.example']],
    ['domains', ['# Title: L', 'keep.example']],
  ] as const)('%s output format', async (format, expected) => {
    const result = await compile({ name: 'L', sources: [{ source: 'b.txt' }] }, { reader: reader(), compiler: 'x', format });
    expect(result.lines).toEqual(expect.arrayContaining([...expected]));
    expect(result.lines.some((l) => l.includes('##'))).toBe(false);
    expect(result.diagnostics[0].message).toMatch(/1 rule\(s\) cannot be expressed in/);
  });
});
