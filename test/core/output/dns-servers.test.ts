import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compile } from '../../../src/core/pipeline/compile.js';
import type { Configuration } from '../../../src/core/config/schema.js';
import type { OutputFormat } from '../../../src/core/output/formats.js';
import { NodeSourceReader, DEFAULT_HTTP } from '../../../src/node/source-reader.js';
import { CORPUS, corpusPath, NEEDS_CORPUS } from '../../support/corpus.js';
import { UNDER_CI } from '../../support/ci.js';

// The outputs of real-sized corpus lists, and of the fixture with every rule shape, loaded by the
// DNS servers' own checkers: `dnsmasq --test` with the file as a conf-file, `unbound-checkconf`
// with the file included, `named-checkzone` for the RPZ zone. Without a checker its test is
// skipped with the reason, except under CI, where it fails: .ci/run installs them (Debian
// packages dnsmasq-base, unbound, bind9-utils).
const corpusSource = (file: string) => (CORPUS === null ? `FLC_CORPUS/${file}` : corpusPath(file));
const FIXTURE = resolve(import.meta.dirname, '../../fixtures/formats/input.txt');
const QUICK = ['RemoveComments', 'Deduplicate', 'Compress', 'Validate', 'TrimLines', 'InsertFinalNewLine'] as const;

/** Each list to check: a name, its configuration (corpus lists need FLC_CORPUS). */
const LISTS: [string, Configuration][] = [
  // 159,141 hosts lines under the reference CLI's quick configuration, as CI jobs compile them.
  [
    'hosts-hagezi-light.txt (quick configuration)',
    {
      name: 'HaGeZi light',
      sources: [{ source: corpusSource('hosts-hagezi-light.txt') }],
      transformations: [...QUICK],
    },
  ],
  // The AdGuard DNS filter as published: exceptions, $important, modifiers, regular expressions.
  [
    'adguard-dns-filter-2019.txt (as published)',
    { name: 'AdGuard DNS filter', sources: [{ source: corpusSource('adguard-dns-filter-2019.txt') }] },
  ],
  ['the fixture with every rule shape', { name: 'Every rule shape', sources: [{ source: FIXTURE }] }],
];

interface Checker {
  format: OutputFormat;
  /** The program that must be installed. */
  program: string;
  /** The checker's command for the list in `file`, run in `dir`. */
  command(file: string, dir: string): string[];
  /** A line that makes the checker refuse the file, to show it reads what it is given. */
  broken: string;
}

const CHECKERS: Checker[] = [
  {
    format: 'dnsmasq',
    program: 'dnsmasq',
    command: (file) => ['dnsmasq', '--test', `--conf-file=${file}`],
    broken: 'no-such-option=1',
  },
  {
    format: 'unbound',
    program: 'unbound-checkconf',
    command(file, dir) {
      const conf = join(dir, 'unbound.conf');
      writeFileSync(
        conf,
        `server:\n  chroot: ""\n  username: ""\n  directory: "${dir}"\n  pidfile: ""\ninclude: "${file}"\n`,
      );
      return ['unbound-checkconf', conf];
    },
    broken: 'local-zone: "example.org." no_such_type',
  },
  {
    format: 'rpz',
    program: 'named-checkzone',
    command: (file) => ['named-checkzone', 'rpz.flc.test', file],
    broken: 'both.example CNAME .\nboth.example CNAME rpz-passthru.',
  },
];

/** Where `program` is: on the PATH, or in the sbin folders a user's PATH may lack; null when nowhere. */
function located(program: string): string | null {
  for (const candidate of [program, `/usr/sbin/${program}`, `/sbin/${program}`]) {
    const probe = spawnSync(candidate, ['-v'], { encoding: 'utf8' });
    if ((probe.error as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') return candidate;
  }
  return null;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-dns-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function write(config: Configuration, format: OutputFormat, file: string): Promise<number> {
  const reader = new NodeSourceReader({ ...DEFAULT_HTTP, baseDir: dir, cacheDir: null, userAgent: 'flc-test' });
  try {
    const result = await compile(config, { reader, compiler: 'flc test', format });
    writeFileSync(file, result.bytes());
    return result.ruleCount;
  } finally {
    await reader.close();
  }
}

function check(checker: Checker, file: string) {
  const [program, ...args] = checker.command(file, dir);
  const run = spawnSync(located(program)!, args, { encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe.each(CHECKERS)("$format output is accepted by the server's own checker ($program)", (checker) => {
  test.for(LISTS)('%s', async ([name, config], ctx) => {
    if (located(checker.program) === null) {
      const why = `${checker.program} is not installed (Debian: dnsmasq-base, unbound, bind9-utils)`;
      if (UNDER_CI) throw new Error(`CI must run the DNS server checkers: ${why}`);
      ctx.skip(`DNS server checker skipped: ${why}`);
    }
    if (config.sources[0].source.startsWith('FLC_CORPUS/')) ctx.skip(NEEDS_CORPUS);
    const file = join(dir, `${name.replace(/\W+/g, '-')}.${checker.format}`);
    const rules = await write(config, checker.format, file);
    expect(rules).toBeGreaterThan(name.startsWith('hosts-hagezi') ? 50_000 : 10);
    const ok = check(checker, file);
    expect(ok.status, ok.output).toBe(0);
    // The same file with one broken line is refused: the checker read what it was given.
    appendFileSync(file, `\n${checker.broken}\n`);
    const refused = check(checker, file);
    expect(refused.status, refused.output).not.toBe(0);
    expect(readFileSync(file, 'utf8').length).toBeGreaterThan(0);
  });
});
