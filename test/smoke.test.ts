import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  statSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
let dir: string;
let bin: string;

let tarball: string;

/**
 * Packs a copy of the package (never this checkout: packing runs `prepack`, which rebuilds dist/, and
 * writes the command manifest), and installs the tarball into an empty project as npm would, but offline
 * and with no npm cache: the tarball is unpacked as `node_modules/flc`, and each runtime dependency it
 * declares is linked from this project's own `node_modules`. Only what the package ships and declares is
 * reachable. The copy is packed as built by `npm test`'s build, writing its manifest as `prepack` does.
 */
let builtBefore: number;

beforeAll(() => {
  builtBefore = statSync(join(ROOT, 'dist/index.js')).mtimeMs;
  dir = mkdtempSync(join(tmpdir(), 'flc-pack-'));
  const copy = join(dir, 'copy');
  cpSync(ROOT, copy, {
    recursive: true,
    filter: (from) => !/^(node_modules|\.git)$/.test(relative(ROOT, from).split(sep)[0]),
  });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  execFileSync(process.execPath, ['scripts/oclif-manifest.js'], { cwd: copy, stdio: 'pipe' });
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: copy, stdio: 'pipe' });
  tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
  writeFileSync(join(dir, 'package.json'), '{"name":"smoke","private":true}');
  const installed = join(dir, 'node_modules/flc');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  }
  bin = join(installed, 'bin/run.js');
}, 240_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the packed package', () => {
  test('ships the built code and a command manifest, and leaves none in the working tree', () => {
    expect(existsSync(join(dir, 'node_modules/flc/oclif.manifest.json'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/flc/dist/core/index.js'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/flc/src'))).toBe(false);
    expect(existsSync(join(ROOT, 'oclif.manifest.json'))).toBe(false);
  });

  test('--version answers without oclif, the bare version; version --verbose as oclif would', async () => {
    const { Config } = await import('@oclif/core');
    const config = await Config.load(join(dir, 'node_modules/flc'));
    expect(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' })).toBe(`${config.version}\n`);
    const verbose = execFileSync(process.execPath, [bin, 'version', '--verbose'], { encoding: 'utf8' });
    expect(verbose).toBe(`${config.userAgent}\n`);
    // Any other first argument still goes through oclif.
    expect(spawnSync(process.execPath, [bin, 'nope', '--version'], { encoding: 'utf8' }).stderr).toContain(
      '"nope" is not a flc command',
    );
  });

  test('runs: --version, compile, validate-rule', () => {
    expect(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' })).toMatch(/^\d+\.\d+\.\d+\n$/);
    // compile runs from the shipped bundle, whose compiled code lands in the cache folder.
    const env = { ...process.env, NODE_COMPILE_CACHE: join(dir, 'v8-cache'), NODE_DISABLE_COMPILE_CACHE: '' };
    const list = spawnSync(process.execPath, [bin, 'compile', '-c', 'flc.config.yaml', '-q'], {
      encoding: 'utf8',
      cwd: join(ROOT, 'examples'),
      env,
    });
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain('||ads.example.com^');
    expect(existsSync(join(dir, 'node_modules/flc/dist/flc-fast.cjs'))).toBe(true);
    expect(readdirSync(join(dir, 'v8-cache')).length).toBeGreaterThan(0);
    const rule = spawnSync(process.execPath, [bin, 'validate-rule', 'example.com##', '--json'], { encoding: 'utf8' });
    expect(rule.status).toBe(1);
    expect(JSON.parse(rule.stdout)).toMatchObject({ valid: false, ruleType: 'InvalidRule' });
  });

  test('the library entry point exports the core API', async () => {
    const lib = await import(join(dir, 'node_modules/flc/dist/index.js'));
    expect(Object.keys(lib)).toEqual(
      expect.arrayContaining(['compile', 'validateRule', 'walkAst', 'configurationSchema', 'TRANSFORMATIONS']),
    );
  });

  test('packing left this checkout as it was: dist/ not rebuilt, no manifest', () => {
    expect(statSync(join(ROOT, 'dist/index.js')).mtimeMs).toBe(builtBefore);
    expect(existsSync(join(ROOT, 'oclif.manifest.json'))).toBe(false);
  });

  test("require('flc') returns the compile function, with the rest of the API on it (HLC's JavaScript example)", () => {
    const script =
      "const compile = require('flc'); process.stdout.write([typeof compile, compile.name, " +
      'typeof compile.validateRule, compile.default === require("flc").compile].join(" "))';
    expect(execFileSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8' })).toBe(
      'function compile function true',
    );
    // And it compiles, as the reference's API does.
    const list = join(ROOT, 'examples/lists/hosts.txt');
    const config = JSON.stringify({ name: 'x', sources: [{ source: list }] });
    const run = `require('flc')(${config}).then((l) => console.log(l.length))`;
    expect(Number(execFileSync(process.execPath, ['-e', run], { cwd: dir, encoding: 'utf8' }))).toBeGreaterThan(5);
  });

  test("HLC's TypeScript example type-checks against the package; a misspelt transformation does not", () => {
    const example = (transformation: string) =>
      [
        "import HostlistCompiler, { IConfiguration as HostlistCompilerConfiguration, type ISource } from 'flc';",
        "import compile from 'flc';",
        "import { writeFileSync } from 'fs';",
        '(async () => {',
        '  const config: HostlistCompilerConfiguration = {',
        "    name: 'Your Hostlist',",
        "    sources: [{ type: 'adblock', source: 'https://example.org/filter.txt',",
        `      transformations: ['RemoveComments', '${transformation}'] }],`,
        "    transformations: ['Deduplicate'],",
        '  };',
        "  const source: ISource = { source: 'hosts.txt', type: 'hosts' };",
        '  const result: string[] = await HostlistCompiler(config);',
        "  const again: string[] = await compile({ name: 'Your Hostlist', sources: [source] });",
        "  writeFileSync('your-hostlist.txt', [...result, ...again].join('\\n'));",
        '})();',
      ].join('\n');
    writeFileSync(join(dir, 'example.mts'), example('Validate'));
    writeFileSync(join(dir, 'misspelt.mts'), example('Validat'));
    const tsc = (file: string) => {
      const options = { module: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] };
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { ...options, typeRoots: [join(ROOT, 'node_modules/@types')] },
          files: [file],
        }),
      );
      return spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], {
        encoding: 'utf8',
      });
    };
    const good = tsc('example.mts');
    expect(good.status, good.stdout).toBe(0);
    const bad = tsc('misspelt.mts');
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toContain('"Validat"');
  }, 120_000);

  test('ships the JSON Schema of the configuration; a configuration naming it in $schema compiles', () => {
    const file = join(dir, 'node_modules/flc/dist/configuration.schema.json');
    const schema = JSON.parse(readFileSync(file, 'utf8'));
    expect(schema.$schema).toMatch(/json-schema\.org/);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['$schema', 'name', 'sources', 'format']));
    expect(schema.properties.sources.items.properties.transformations.items.enum).toContain('ValidateAllowIp');
    expect(schema.additionalProperties).toBe(false);
    const config = {
      $schema: './node_modules/flc/dist/configuration.schema.json',
      name: 'Schema',
      sources: [{ source: join(ROOT, 'examples/lists/hosts.txt') }],
    };
    writeFileSync(join(dir, 'flc.config.json'), JSON.stringify(config));
    const run = spawnSync(process.execPath, [bin, 'compile', '-q'], { cwd: dir, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('! Title: Schema');
  });

  test('npm install -g of the tarball (into a temporary prefix) gives a working flc', () => {
    const prefix = join(dir, 'prefix');
    const install = spawnSync(
      'npm',
      ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', tarball],
      { encoding: 'utf8', timeout: 300_000 },
    );
    expect(install.status, install.stderr).toBe(0);
    const flc = join(prefix, 'bin/flc');
    expect(execFileSync(flc, ['--version'], { encoding: 'utf8' })).toMatch(/^\d+\.\d+\.\d+\n$/);
    const list = spawnSync(flc, ['-c', 'flc.config.json', '-q'], { cwd: join(ROOT, 'examples'), encoding: 'utf8' });
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain('||ads.example.com^');
  }, 320_000);
});
