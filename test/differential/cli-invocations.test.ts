import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../support/http-server.js';
import { listFile, runFlc, runReference } from '../support/two-clis.js';

/**
 * Every invocation of the reference's README (node_modules/@adguard/hostlist-compiler/README.md)
 * and every example of the hostlist-compiler user's switch, run with `flc` and with the
 * reference's own CLI in the same folder: same output file (minus the time and compiler lines),
 * same exit status.
 */
let dir: string;
let server: TestServer;
const HOSTS =
  '# hosts\n0.0.0.0 ads.example.com\n0.0.0.0 tracking.example1.com\n127.0.0.1 example.com\n0.0.0.0 x_.example.com\n';
const HOSTS2 = '0.0.0.0 ads.example.com\n0.0.0.0 sub.ads.example.com\n0.0.0.0 other.example.org # trailing\n';
const RULES = '! rules\n||rules.example^\n@@||allowed.example^\n||bad.example^$media\nexample.net\n';

function files(root: string, entries: Record<string, string>): void {
  for (const [name, text] of Object.entries(entries)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
}

/** A fresh folder with `entries`, for one pair of runs. */
function workspace(name: string, entries: Record<string, string>): string {
  const root = join(dir, name);
  mkdirSync(root, { recursive: true });
  files(root, entries);
  return root;
}

/** Runs both CLIs with `args` in a copy each of the same folder, and compares what they wrote to `output`. */
async function same(name: string, entries: Record<string, string>, args: string[], output = 'output.txt') {
  const ours = workspace(`${name}-flc`, entries);
  const theirs = workspace(`${name}-ref`, entries);
  const [flc, reference] = await Promise.all([runFlc(args, ours), runReference(args, theirs)]);
  expect(flc.code, `flc: ${flc.stderr}`).toBe(reference.code);
  const expected = listFile(join(theirs, output));
  expect(expected, reference.stderr).not.toBeNull();
  expect(listFile(join(ours, output))).toEqual(expected);
  return { flc, reference, expected: expected as string[] };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flc-invocations-'));
  server = await startServer((req, res) => {
    res.writeHead(req.url === '/hosts.txt' ? 200 : 404, { 'content-type': 'text/plain' });
    res.end(req.url === '/hosts.txt' ? HOSTS2 : 'not found');
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the reference README's invocations, with flc and with hostlist-compiler", () => {
  test('hostlist-compiler -i hosts.txt -i hosts2.txt -o output.txt', async () => {
    const { expected } = await same('quick', { 'hosts.txt': HOSTS, 'hosts2.txt': HOSTS2 }, [
      '-i',
      'hosts.txt',
      '-i',
      'hosts2.txt',
      '-o',
      'output.txt',
    ]);
    // Compress folds the subdomains into ||example.com^; the name with a label ending in `_` is dropped.
    expect(expected).toContain('||example.com^');
    expect(expected).toContain('||other.example.org^');
    expect(expected.join('\n')).not.toContain('x_.example.com');
  });

  test('hostlist-compiler -c configuration.json -o output.txt (the minimal configuration)', async () => {
    const config = JSON.stringify({ name: 'test list', sources: [{ source: 'rules.txt' }] });
    await same('minimal', { 'configuration.json': config, 'rules.txt': RULES }, [
      '-c',
      'configuration.json',
      '-o',
      'output.txt',
    ]);
  });

  test('hostlist-compiler -c config.json -o output.txt (the full example configuration, local sources)', async () => {
    const config = {
      name: 'List name',
      description: 'List description',
      homepage: 'https://example.org/',
      license: 'GPLv3',
      version: '1.0.0.0',
      sources: [
        {
          name: 'Local rules',
          source: 'rules.txt',
          type: 'adblock',
          transformations: ['RemoveComments', 'Compress'],
          exclusions: ['excluded rule 1'],
          exclusions_sources: ['exclusions.txt'],
          inclusions: ['*'],
          inclusions_sources: ['inclusions.txt'],
        },
        { name: 'Remote rules', source: `${server.url}/hosts.txt`, type: 'hosts', exclusions: ['excluded rule 1'] },
      ],
      transformations: ['Deduplicate', 'Compress'],
      exclusions: ['excluded rule 1', 'excluded rule 2'],
      exclusions_sources: ['global_exclusions.txt'],
      inclusions: ['*'],
      inclusions_sources: ['global_inclusions.txt'],
    };
    await same(
      'full',
      {
        'config.json': JSON.stringify(config, null, 2),
        'rules.txt': RULES,
        'exclusions.txt': '||bad.example^$media\n',
        'inclusions.txt': '*.example*\n',
        'global_exclusions.txt': '! none\n||allowed.example^\n',
        'global_inclusions.txt': '*\n',
      },
      ['-c', 'config.json', '-o', 'output.txt'],
    );
  });

  test('hostlist-compiler -i https://example.org/hosts.txt -o output.txt (a URL: a local server here)', async () => {
    await same('url', {}, ['-i', `${server.url}/hosts.txt`, '-o', 'output.txt']);
  });

  test("the README's exclusions example: hosts.txt with Compress, exclusions.txt in adblock syntax", async () => {
    const config = {
      name: 'List name',
      description: 'List description',
      sources: [{ name: 'HOSTS rules', source: 'hosts.txt', type: 'hosts', transformations: ['Compress'] }],
      transformations: ['Deduplicate', 'Compress'],
      exclusions_sources: ['exclusions.txt'],
    };
    const { expected } = await same(
      'exclusions',
      {
        'configuration.json': JSON.stringify(config),
        'hosts.txt': '0.0.0.0 ads.example.com\n0.0.0.0 tracking.example1.com\n0.0.0.0 example.com\n',
        'exclusions.txt': '||example.com^\n',
      },
      ['-c', 'configuration.json', '-o', 'output.txt'],
    );
    // The README says ||ads.example.com^ stays too; Compress has folded it into ||example.com^ before the
    // exclusion removes that, in both compilers.
    expect(expected.filter((l) => l.startsWith('||'))).toEqual(['||tracking.example1.com^']);
  });

  test('-i with -t adblock, and -t hosts', async () => {
    for (const type of ['adblock', 'hosts']) {
      await same(`type-${type}`, { 'rules.txt': RULES + HOSTS }, ['-i', 'rules.txt', '-t', type, '-o', 'output.txt']);
    }
  });

  test('-v (verbose) writes the same list', async () => {
    const config = JSON.stringify({ name: 'v', sources: [{ source: 'rules.txt' }], transformations: ['Validate'] });
    const { flc, reference } = await same('verbose', { 'config.json': config, 'rules.txt': RULES }, [
      '-c',
      'config.json',
      '-o',
      'output.txt',
      '-v',
    ]);
    // Each removed rule with its transformation and reason, as the reference's -v shows it.
    expect(reference.stdout + reference.stderr).toContain('Contains unsupported modifier media: ||bad.example^$media');
    expect(flc.stderr).toMatch(
      /\nValidate: removed \|\|bad\.example\^\$media \(\S*rules\.txt:4\): unsupported modifier \$media\n/,
    );
  });

  test('--help, -h and --version exit 0 with both; flc -h lists the commands', async () => {
    for (const args of [['--help'], ['-h'], ['--version']]) {
      const [flc, reference] = await Promise.all([runFlc(args, dir), runReference(args, dir)]);
      expect(flc.code, args.join(' ')).toBe(reference.code);
      expect(flc.code).toBe(0);
    }
    const help = await runFlc(['-h'], dir);
    expect(help.stdout).toContain('compile');
    expect(help.stdout).toContain('validate-rule');
    // The bare version, as the reference prints its own: scripts that read it read flc's alike.
    const [flc, reference] = await Promise.all([runFlc(['--version'], dir), runReference(['--version'], dir)]);
    expect(reference.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(flc.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('real repository layouts: configuration in source/, lists at the root, run from the root', () => {
  test('hostlist-compiler -c ./source/lite.json with ./adblock/hostsvn.txt', async () => {
    const config = {
      name: 'Lite',
      sources: [
        { name: 'hostsVN', source: './adblock/hostsvn.txt', type: 'adblock' },
        { name: 'extra', source: 'source/extra.txt', type: 'hosts', transformations: ['Compress'] },
      ],
      transformations: ['RemoveComments', 'Validate', 'Deduplicate', 'TrimLines', 'InsertFinalNewLine'],
    };
    const { expected } = await same(
      'hostsvn',
      {
        'source/lite.json': JSON.stringify(config, null, 2),
        'source/extra.txt': HOSTS2,
        'adblock/hostsvn.txt': `! hostsVN\n${RULES}||ads.vn^\n`,
        'filter/README.md': 'compiled lists\n',
      },
      ['-c', './source/lite.json', '-o', 'filter/lite.txt'],
      'filter/lite.txt',
    );
    expect(expected).toContain('||ads.vn^');
  });

  test('hostlist-compiler -c ./source/config.json with allowlist.txt at the root as exclusions_sources', async () => {
    const config = {
      name: 'Blocklist',
      sources: [{ source: 'hosts.txt', type: 'hosts', transformations: ['Compress'] }],
      transformations: ['Validate', 'Deduplicate'],
      exclusions_sources: ['allowlist.txt'],
    };
    const { expected } = await same(
      'allowlist',
      {
        'source/config.json': JSON.stringify(config),
        'hosts.txt': HOSTS + HOSTS2,
        'allowlist.txt': 'tracking.example1\n',
      },
      ['-c', './source/config.json', '-o', 'output.txt'],
    );
    expect(expected).toContain('||example.com^');
    expect(expected.join('\n')).not.toContain('tracking.example1');
  });
});

describe('flc-only conveniences around the same command line', () => {
  test('without -o the list goes to stdout; -o - too', async () => {
    const root = workspace('stdout', { 'hosts.txt': HOSTS });
    const plain = await runFlc(['-i', 'hosts.txt'], root);
    const dash = await runFlc(['-i', 'hosts.txt', '-o', '-'], root);
    expect(plain.code).toBe(0);
    expect(dash.stdout.split('\n').slice(4)).toEqual(plain.stdout.split('\n').slice(4));
    expect(dash.stdout).toContain('||tracking.example1.com^');
    expect(readFileSync(join(root, 'hosts.txt'), 'utf8')).toBe(HOSTS);
  });
});
