import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// Shell completion through @oclif/plugin-autocomplete (3.2, the last on Node 20): the scripts it
// writes into the cache folder complete flc's commands and flags, as bash itself runs them.
const BIN = resolve(import.meta.dirname, '../../bin/run.js');
let cache: string;

beforeAll(() => {
  cache = mkdtempSync(join(tmpdir(), 'flc-completion-'));
});
afterAll(() => rmSync(cache, { recursive: true, force: true }));

const flc = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cache } });

describe('shell completion', () => {
  test('flc autocomplete bash|zsh explain the setup; the cache holds both scripts', () => {
    for (const shell of ['bash', 'zsh']) {
      const run = flc('autocomplete', shell);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(`flc autocomplete script ${shell}`);
    }
    expect(flc('autocomplete', '--refresh-cache').status).toBe(0);
    const zsh = readFileSync(join(cache, 'flc/autocomplete/functions/zsh/_flc'), 'utf8');
    expect(zsh).toMatch(/^#compdef flc/);
    for (const word of ['compile', 'validate-rule', 'ast-walk', '--config', '--report']) expect(zsh).toContain(word);
  });

  test('bash completes commands and flags with the generated function', () => {
    expect(flc('autocomplete', '--refresh-cache').status).toBe(0);
    const script = join(cache, 'flc/autocomplete/functions/bash/flc.bash');
    const complete = (line: string) => {
      const words = line.split(' ');
      const run = spawnSync(
        'bash',
        [
          '-c',
          `source "${script}"; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; COMP_LINE="${line}"; ` +
            '_flc_autocomplete; echo "${COMPREPLY[@]}"',
        ],
        { encoding: 'utf8' },
      );
      expect(run.status, run.stderr).toBe(0);
      return run.stdout.trim().split(/\s+/);
    };
    expect(complete('flc comp')).toEqual(['compile']);
    expect(complete('flc compile --con')).toEqual(['--config', '--concurrency']);
    expect(complete('flc validate-rule --str')).toEqual(['--strict']);
  });
});
