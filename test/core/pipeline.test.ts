import { describe, expect, test } from 'vitest';
import { compile } from '../../src/core/pipeline/compile.js';
import type { CompileEvent } from '../../src/core/pipeline/events.js';
import { AbortedError } from '../../src/core/errors/index.js';
import { SourceError } from '../../src/core/errors/index.js';
import { memoryReader } from '../support/memory-reader.js';
import type { TransformationName } from '../../src/core/transforms/types.js';

const reader = () =>
  memoryReader({
    '/a.txt': '! list a\n0.0.0.0 ads.example.com\n0.0.0.0 sub.ads.example.com\n||bad.example^$media\n||keep.example^',
    '/b.txt': '||keep.example^\nexample.org##.ad',
  });
const at = new Date('2026-01-02T03:04:05.678Z');

describe('compile', () => {
  test('source blocks, header, fixed order, and the compile time from the clock', async () => {
    const result = await compile(
      {
        name: 'L',
        description: 'D',
        sources: [{ source: 'a.txt', name: 'A', transformations: ['Compress'] }, { source: 'b.txt' }],
        transformations: ['Validate', 'Deduplicate', 'InsertFinalNewLine'],
      },
      { reader: reader(), compiler: 'flc v9', now: () => at },
    );
    expect(result.lines).toEqual([
      '!',
      '! Title: L',
      '! Description: D',
      '! Last modified: 2026-01-02T03:04:05.678Z',
      '!',
      '! Compiled by flc v9',
      '!',
      '!',
      '! Source name: A',
      '! Source: a.txt',
      '!',
      '! list a',
      '||ads.example.com^',
      '!',
      '! Source: b.txt',
      '!',
      '||keep.example^',
      '',
    ]);
    expect(result.ruleCount).toBe(2);
  });

  test('events: sources and every transformation with counts', async () => {
    const events: CompileEvent[] = [];
    await compile(
      { name: 'L', sources: [{ source: 'a.txt', transformations: ['Compress'] }], transformations: ['Deduplicate'] },
      { reader: reader(), compiler: 'x', onEvent: (e) => events.push(e) },
    );
    const types = events.map((e) =>
      e.type.startsWith('transformation') ? `${e.type}:${(e as { name: string }).name}` : e.type,
    );
    expect(types).toEqual([
      'source:start',
      'source:complete',
      'transformation:start:Compress',
      'transformation:complete:Compress',
      'progress',
      'transformation:start:Deduplicate',
      'transformation:complete:Deduplicate',
      'progress',
    ]);
    const compress = events.find((e) => e.type === 'transformation:complete') as Extract<
      CompileEvent,
      { type: 'transformation:complete' }
    >;
    expect([compress.inputCount, compress.outputCount]).toEqual([5, 4]);
  });

  test('report: every removed line with its source, line number and reason', async () => {
    const result = await compile(
      {
        name: 'L',
        sources: [{ source: 'a.txt', transformations: ['Compress'] }],
        transformations: ['Validate'],
        exclusions: ['keep'],
      },
      { reader: reader(), compiler: 'x', report: true },
    );
    const removed = result.report!.removed.map(
      (r) => `${r.transformation}|${r.code}|${r.source}:${r.line}|${r.text}|${r.reason}`,
    );
    expect(removed).toEqual([
      'Compress|redundant-hostname|/a.txt:3|||sub.ads.example.com^|' +
        'sub.ads.example.com is covered by ||ads.example.com^',
      'Exclusions|excluded|/a.txt:5|||keep.example^|matches exclusion keep',
      'Validate|invalid-rule|/a.txt:4|||bad.example^$media|unsupported modifier $media',
    ]);
    expect(result.report!.transformations.map((t) => `${t.scope}:${t.name}:${t.inputCount}->${t.outputCount}`)).toEqual(
      ['0:Compress:5->4', 'global:Exclusions:7->6', 'global:Validate:6->5'],
    );
  });

  test('report: in configuration order, then the whole list, however the sources finish', async () => {
    // The first source answers only once the second has been read, so the second finishes loading
    // first; its steps and removals still come after the first's.
    const files = reader();
    let secondDone!: () => void;
    const second = new Promise<void>((resolve) => (secondDone = resolve));
    const slowFirst = {
      ...files,
      read: async (location: string) => {
        if (location === '/a.txt') await second;
        const text = await files.read(location);
        if (location === '/b.txt') secondDone();
        return text;
      },
    };
    const result = await compile(
      {
        name: 'L',
        sources: [
          { source: 'a.txt', transformations: ['Compress', 'Validate'] },
          { source: 'b.txt', transformations: ['Compress', 'Validate'] },
        ],
        transformations: ['Deduplicate'],
      },
      {
        reader: slowFirst,
        compiler: 'x',
        report: true,
      },
    );
    expect(files.reads).toEqual(['/b.txt', '/a.txt']); // read (after the wait) in that order
    const report = result.report!;
    expect(report.sources.map((s) => s.source)).toEqual(['a.txt', 'b.txt']);
    expect(report.transformations.map((t) => `${t.scope}:${t.name}`)).toEqual([
      '0:Compress',
      '0:Validate',
      '1:Compress',
      '1:Validate',
      'global:Deduplicate',
    ]);
    expect(report.removed.map((r) => `${r.scope}:${r.transformation}:${r.text}`)).toEqual([
      '0:Compress:||sub.ads.example.com^',
      '0:Validate:||bad.example^$media',
      '1:Validate:example.org##.ad',
      'global:Deduplicate:||keep.example^',
    ]);
  });

  test('report: a skipped source keeps its place, so the sources after it wait for those before', async () => {
    // The first source answers late; the second fails at once and is skipped; the third is ready
    // first. Its steps and removals still come after the first's, on either engine.
    const files = reader();
    const slowFirst = {
      ...files,
      read: async (location: string) => {
        if (location === '/a.txt') await new Promise((resolve) => setTimeout(resolve, 30));
        return files.read(location);
      },
    };
    const steps: TransformationName[] = ['Compress', 'Validate'];
    for (const packed of [true, false]) {
      const result = await compile(
        {
          name: 'L',
          onSourceError: 'skip',
          sources: ['a.txt', 'missing.txt', 'b.txt'].map((source) => ({ source, transformations: steps })),
        },
        { reader: slowFirst, compiler: 'x', report: true, packed },
      );
      expect(result.report!.sources.map((s) => [s.source, s.error === undefined])).toEqual([
        ['a.txt', true],
        ['missing.txt', false],
        ['b.txt', true],
      ]);
      expect(result.report!.transformations.map((t) => `${t.scope}:${t.name}`)).toEqual([
        '0:Compress',
        '0:Validate',
        '2:Compress',
        '2:Validate',
      ]);
      expect(result.report!.removed.map((r) => r.text)).toEqual([
        '||sub.ads.example.com^',
        '||bad.example^$media',
        'example.org##.ad',
      ]);
    }
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
    await expect(
      compile(
        { name: 'L', sources: [{ source: 'a.txt' }] },
        { reader: reader(), compiler: 'x', signal: controller.signal },
      ),
    ).rejects.toBeInstanceOf(AbortedError);
  });

  test.each([
    ['hosts', ['# Title: L', '0.0.0.0 keep.example']],
    ['domains', ['# Title: L', 'keep.example']],
  ] as const)('%s output format', async (format, expected) => {
    const result = await compile(
      { name: 'L', sources: [{ source: 'b.txt' }] },
      { reader: reader(), compiler: 'x', format },
    );
    expect(result.lines).toEqual(expect.arrayContaining([...expected]));
    expect(result.lines.some((l) => l.includes('##'))).toBe(false);
    expect(result.diagnostics[0].message).toMatch(/1 rule\(s\) cannot be expressed in/);
  });
});

describe('packed and string compilation', () => {
  const files = {
    '/hosts.txt':
      '# hosts\r\n0.0.0.0 ads.example.com\r\n0.0.0.0 sub.ads.example.com\r\n\r\n' +
      '127.0.0.1 a.example.org b.example.org\r\n0.0.0.0 ads.example.com\r\n  ||padded.example.net^  \r\n',
    '/adblock.txt':
      '! adblock\n||ads.example.com^\n||bad.example^$media\n@@||ok.example^\n||co.uk^\nexample.org##.ad\n\n\n' +
      '||keep.example^\n||keep.example^\n0.0.0.0\u00a0nbsp.example.com',
    '/directives.txt': '! with directives\n!#if true\n||if.example^\n!#endif\n||ads.example.com^',
    '/unicode.txt': '\ufeff||bom.example^\n127.0.0.1 münchen.de\n||ünicode.example^',
  };
  const sources = Object.keys(files).map((source) => ({ source }));
  const all = [
    'TrimLines',
    'RemoveComments',
    'Compress',
    'Validate',
    'Deduplicate',
    'RemoveEmptyLines',
    'InsertFinalNewLine',
  ] as const;
  const configs = [
    { name: 'global', sources, transformations: [...all] },
    {
      name: 'per source',
      sources: sources.map((s) => ({ ...s, transformations: [...all] })),
      transformations: ['Deduplicate' as const],
    },
    {
      name: 'mixed forms',
      sources,
      transformations: [
        'TrimLines' as const,
        'RemoveModifiers' as const,
        'Compress' as const,
        'ValidateAllowIp' as const,
        'Deduplicate' as const,
      ],
    },
    {
      name: 'exclusions',
      sources,
      exclusions: ['*.example.org^', '/co\\.uk/'],
      transformations: ['Compress' as const, 'Validate' as const],
    },
    { name: 'no transformations', sources },
  ];

  test.each(configs.map((c) => [c.name, c]))('%s: identical lines, bytes, counts and events', async (_name, config) => {
    const run = async (packed: boolean) => {
      const events: CompileEvent[] = [];
      const result = await compile(config, {
        reader: memoryReader(files),
        compiler: 'flc v9',
        now: () => at,
        packed,
        onEvent: (e) => void events.push(e),
      });
      // Sources compile concurrently, so their events interleave by timing: compare per scope.
      const scopeOf = (scope: { kind: string; index?: number }) =>
        scope.kind === 'global' ? 'global' : `source ${scope.index}`;
      const counts: Record<string, unknown[]> = {};
      for (const e of events)
        if (e.type === 'transformation:complete')
          counts[scopeOf(e.scope)] = [...(counts[scopeOf(e.scope)] ?? []), [e.name, e.inputCount, e.outputCount]];
      return { result, counts };
    };
    const [packed, strings] = [await run(true), await run(false)];
    expect(packed.result.lines).toEqual(strings.result.lines);
    expect(packed.result.lineCount).toBe(strings.result.lineCount);
    expect(packed.result.ruleCount).toBe(strings.result.ruleCount);
    expect(Buffer.from(packed.result.bytes()).toString()).toBe(strings.result.lines.join('\n'));
    expect(Buffer.from(strings.result.bytes()).toString()).toBe(strings.result.lines.join('\n'));
    expect(packed.counts).toEqual(strings.counts);
  });

  test.each(['hosts', 'domains'] as const)('--format %s from a packed list equals the string form', async (format) => {
    const run = (packed: boolean) =>
      compile(configs[0], { reader: memoryReader(files), compiler: 'flc v9', now: () => at, format, packed });
    expect((await run(true)).lines).toEqual((await run(false)).lines);
  });
});

describe('where the packed engine hands over to strings, the events say so', () => {
  const notes = async (files: Record<string, string>, transformations: string[], packed = true) => {
    const events: CompileEvent[] = [];
    await compile({ name: 'L', sources: Object.keys(files).map((source) => ({ source })), transformations } as never, {
      reader: memoryReader(files),
      compiler: 'flc',
      onEvent: (e) => events.push(e),
      packed,
    });
    return events.flatMap((e) => (e.type === 'log' && e.level === 'debug' ? [e.message] : []));
  };

  test('a transformation without a packed form, once per scope, and nothing when all have one', async () => {
    const files = { '/a.txt': '||a.example^$third-party\n!#if true\n||b.example^\n!#endif' };
    // InvertAllow runs before ValidateAllowIp: one note, at the first.
    expect(await notes(files, ['Compress', 'ValidateAllowIp', 'InvertAllow'])).toEqual([
      'list: InvertAllow works on text, so the steps from it on run on strings',
    ]);
    expect(await notes(files, ['Compress', 'Validate', 'Deduplicate'])).toEqual([]);
    // At a source, the whole list after it follows.
    const source = { name: 'L', sources: [{ source: '/a.txt', transformations: ['InvertAllow'] }] };
    const events: CompileEvent[] = [];
    await compile(source as never, { reader: memoryReader(files), compiler: 'flc', onEvent: (e) => events.push(e) });
    expect(events.flatMap((e) => (e.type === 'log' ? [e.message] : []))).toEqual([
      'source 1: InvertAllow works on text, so the steps from it on run on strings',
      'list: a source in it compiles on strings, so it compiles on strings',
    ]);
    // The plain TypeScript engine was asked for: nothing falls back.
    expect(await notes(files, ['InvertAllow'], false)).toEqual([]);
  });

  test('a kernel step without room for the list runs on strings, with the steps after it', async () => {
    // 40 lines naming 100 hosts each: more hostnames than Compress's kernel makes room for.
    const text = Array.from(
      { length: 40 },
      (_, i) => `0.0.0.0 ${Array.from({ length: 100 }, (_, j) => `h${i}-${j}.example`).join(' ')}`,
    ).join('\n');
    expect(await notes({ '/a.txt': text }, ['Compress', 'Deduplicate'])).toEqual([
      "list: Compress finds no room in the WebAssembly kernel's memory, so it and the steps after it run on strings",
    ]);
  });

  test('a compile that records removed lines stays packed, and reports them as strings do', async () => {
    const files = {
      '/a.txt':
        '\r\n! a\r\n0.0.0.0 a.example b.example\r\n\r\n||a.example^\n!#include b.txt\n||x.a.example^$third-party',
      '/b.txt': '! Diff-Path: p\n\n||b.example^\n  \n||x.b.example^\n||1.2.3.4^\n! above\n||x.b.example^',
    };
    const config = {
      name: 'L',
      sources: [{ source: '/a.txt', transformations: ['RemoveEmptyLines', 'Compress', 'Validate'] }],
      transformations: ['RemoveComments', 'Deduplicate', 'InsertFinalNewLine'],
    } as const;
    const run = async (packed: boolean) => {
      const events: CompileEvent[] = [];
      const options = {
        reader: memoryReader(files),
        compiler: 'flc',
        now: () => new Date(0),
        onEvent: (e: CompileEvent) => events.push(e),
      };
      const result = await compile(config as never, { ...options, report: true, packed });
      const logs = events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
      const removed = result.report!.removed.map(
        (r) => `${r.source}:${r.line} ${r.transformation} ${r.code} ${r.text}`,
      );
      return { logs, removed, lines: result.lines };
    };
    const packed = await run(true);
    expect(packed.logs).toEqual([]);
    expect(packed).toEqual(await run(false));
    // Headers and included lists keep their places: synthetic lines have none, Diff-Path goes at load.
    expect(packed.removed).toEqual([
      '/a.txt:5 Compress duplicate-hostname ||a.example^',
      '/b.txt:3 Compress duplicate-hostname ||b.example^',
      '/b.txt:8 Compress duplicate-hostname ||x.b.example^',
      '/b.txt:5 Compress redundant-hostname ||x.b.example^',
      '/a.txt:7 Validate invalid-rule ||x.a.example^$third-party',
      '/b.txt:7 Validate comment-above-invalid ! above',
      '/b.txt:6 Validate invalid-rule ||1.2.3.4^',
      '/b.txt:4 RemoveEmptyLines empty-line   ',
      'null:null RemoveComments comment !',
      'null:null RemoveComments comment ! Source: /a.txt',
      'null:null RemoveComments comment !',
      '/a.txt:2 RemoveComments comment ! a',
    ]);
  });

  test('a source whose text is not well-formed Unicode', async () => {
    expect(await notes({ '/a.txt': '||a.example^', '/b.txt': '||\ud800.example^' }, [])).toEqual([
      'source 2: its text (or a list it includes) is not well-formed Unicode, or no WebAssembly memory could be ' +
        'had for it, so it and the whole list compile on strings',
      'list: a source in it compiles on strings, so it compiles on strings',
    ]);
  });
});

test('an exclusions file that many sources share is read once per compile, and applies to each', async () => {
  const files = {
    '/a.txt': '||a.example^\n||drop.example^',
    '/b.txt': '||b.example^\n||drop.example^',
    '/c.txt': '||c.example^\n||drop.example^',
    '/excl.txt': '! shared\ndrop.example',
  };
  const reader = memoryReader(files);
  const sources = ['/a.txt', '/b.txt', '/c.txt'].map((source) => ({ source, exclusions_sources: ['/excl.txt'] }));
  const result = await compile({ name: 'L', sources }, { reader, compiler: 'flc', packed: false });
  expect(reader.reads.filter((r) => r === '/excl.txt')).toEqual(['/excl.txt']);
  expect(result.lines.filter((l) => l.startsWith('||'))).toEqual(['||a.example^', '||b.example^', '||c.example^']);
});
