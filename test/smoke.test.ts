import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
let dir: string;
let bin: string;

/**
 * Packs the package and installs the tarball into an empty project as npm would, but offline and with no
 * npm cache: the tarball is unpacked as `node_modules/flc`, and each runtime dependency it declares is linked
 * from this project's own `node_modules` (a fresh machine's cache holds tarballs only, never the registry
 * metadata an `npm install` of the tarball needs). Only what the package ships and declares is reachable.
 */
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-pack-'));
  execFileSync('npm', ['pack', '--pack-destination', dir], { cwd: ROOT, stdio: 'pipe' });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(join(dir, 'package.json'), '{"name":"smoke","private":true}');
  const installed = join(dir, 'node_modules/flc');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(dir, tarball), '-C', installed, '--strip-components=1']);
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
});
