import { describe, expect, test } from 'vitest';
import { PassThrough } from 'node:stream';
import { colors, ProgressPrinter } from '../../src/cli/progress.js';
import type { CompileEvent } from '../../src/core/pipeline/events.js';

/** A stream that says it is a terminal, keeping what is written. */
function terminal() {
  const stream = Object.assign(new PassThrough(), {
    isTTY: true,
    columns: 200,
    cursorTo: () => true,
    clearLine: () => true,
  });
  let text = '';
  stream.on('data', (d) => (text += d));
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

const RUN: CompileEvent[] = [
  { type: 'source:start', index: 0, source: 'hosts.txt' },
  { type: 'source:complete', index: 0, source: 'hosts.txt', lineCount: 1200, durationMs: 3 },
  { type: 'transformation:start', scope: { kind: 'global' }, name: 'Validate', inputCount: 1200 },
  {
    type: 'transformation:complete',
    scope: { kind: 'global' },
    name: 'Validate',
    inputCount: 1200,
    outputCount: 1100,
    durationMs: 1,
  },
  {
    type: 'diagnostic',
    diagnostic: { code: 'unsupported-in-format', severity: 'warning', message: '3 rule(s) left out' },
  },
];

describe('compile progress on a terminal', () => {
  test('a bar with the phase: downloading, each transformation with lines in and out', async () => {
    const out = terminal();
    const progress = new ProgressPrinter(out.stream, { tty: true, verbose: false, quiet: false }, {});
    await progress.start(1);
    for (const e of RUN) progress.handle(e);
    progress.finish();
    const text = out.text();
    expect(text).toContain('0/1 sources | downloading hosts.txt');
    expect(text).toContain('1/1 sources | loaded hosts.txt: 1200 lines');
    expect(text).toContain('list: Validate, 1200 lines in');
    expect(text).toContain('list: Validate 1200 -> 1100 lines');
    expect(text).toContain('\x1b[33mwarning\x1b[39m: 3 rule(s) left out');
  });

  test('-q: no bar, no progress, the warning still', async () => {
    const out = terminal();
    const progress = new ProgressPrinter(out.stream, { tty: true, verbose: false, quiet: true }, { NO_COLOR: '1' });
    await progress.start(1);
    for (const e of RUN) progress.handle(e);
    progress.finish();
    expect(out.text()).toBe('flc: warning: 3 rule(s) left out\n');
  });

  test('not a terminal: plain lines for a log', async () => {
    const out = terminal();
    const progress = new ProgressPrinter(out.stream, { tty: false, verbose: true, quiet: false });
    await progress.start(1);
    for (const e of RUN) progress.handle(e);
    expect(out.text()).toContain('flc: source 1/1 loaded: hosts.txt (1200 lines, 3 ms)\n');
    expect(out.text()).toContain('flc: list: Validate 1200 -> 1100 lines (1.0 ms)\n');
    expect(out.text()).not.toContain('sources |');
  });

  test('colors follow the stream written to, and NO_COLOR, NODE_DISABLE_COLORS, TERM=dumb, FORCE_COLOR', () => {
    expect(colors(true, {})).toBe(true);
    expect(colors(false, {})).toBe(false);
    for (const env of [{ NO_COLOR: '' }, { NO_COLOR: '1' }, { NODE_DISABLE_COLORS: '1' }, { TERM: 'dumb' }]) {
      expect(colors(true, env), JSON.stringify(env)).toBe(false);
    }
    expect(colors(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(colors(true, { FORCE_COLOR: '0' })).toBe(true);
    expect(colors(false, { FORCE_COLOR: '0' })).toBe(false);
    // Piped (a log), warnings are plain whatever standard output is.
    const out = terminal();
    new ProgressPrinter(out.stream, { tty: false, verbose: false, quiet: true }, {}).handle(RUN[4]);
    expect(out.text()).toBe('flc: warning: 3 rule(s) left out\n');
  });
});
