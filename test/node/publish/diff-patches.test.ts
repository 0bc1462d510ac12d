// writeWithPatch against the cases an attack on the publishing options found: the builder reading
// the clock after flc, patches moved between builds, stray files in the patches folder, a tag flc
// never writes, a list reached through a linked folder, and the list's permissions.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DiffSettings, writeWithPatch } from '../../../src/node/publish/diff-patches.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-diff-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const HOUR = 3_600_000;
const settings = (patches: string): DiffSettings => ({
  dir: patches,
  name: 'list',
  resolution: 'h',
  expiry: 1,
  keepSeconds: 7 * 86_400,
  checksum: false,
});
const tagOf = (list: string) => list.split('\n')[0].replace('! Diff-Path: ', '');
/** Builds `text` at `at` (ms) over what `out` holds: the list as written, and the warnings. */
async function build(out: string, text: string, s: DiffSettings, at: number | [number, number]) {
  const [mine, builders] = typeof at === 'number' ? [at, at] : at;
  vi.spyOn(Date, 'now').mockReturnValueOnce(mine).mockReturnValue(builders);
  const previous = existsSync(out) ? readFileSync(out, 'utf8') : null;
  const warnings: string[] = [];
  const list = await writeWithPatch(out, previous, text, s, (w) => warnings.push(w));
  vi.restoreAllMocks();
  return { list, warnings };
}

describe('writeWithPatch', () => {
  test('the builder naming its patch a unit later than flc (a build across xx:30) keeps the chain', async () => {
    const out = join(dir, 'list.txt');
    const s = settings(join(dir, 'patches'));
    const v1 = await build(out, '||a.example^\n', s, 100 * HOUR);
    const half = 101.5 * HOUR;
    const v2 = await build(out, '||a.example^\n||b.example^\n', s, [half - 1, half + 1]);
    expect(v2.warnings).toEqual([]);
    expect(tagOf(v2.list)).toBe('patches/list-102-1.patch');
    expect(readFileSync(join(dir, 'patches/list-102-1.patch'), 'utf8')).toBe('');
    expect(readFileSync(join(dir, tagOf(v1.list)), 'utf8')).toContain('||b.example^');
  });

  test('patches moved to another folder between builds: the previous patch is filled where it is', async () => {
    const out = join(dir, 'list.txt');
    const v1 = await build(out, '||a.example^\n', settings(join(dir, 'patches')), 100 * HOUR);
    const v2 = await build(out, '||a.example^\n||b.example^\n', settings(join(dir, 'p2')), 101 * HOUR);
    expect(v2.warnings).toEqual([]);
    expect(tagOf(v2.list)).toBe('p2/list-101-1.patch');
    expect(readFileSync(join(dir, tagOf(v1.list)), 'utf8')).not.toBe('');
  });

  test('folders, links and files not of the patch form in the patches folder are left alone', async () => {
    const out = join(dir, 'list.txt');
    const patches = join(dir, 'patches');
    mkdirSync(patches);
    mkdirSync(join(patches, 'dir-1-1.patch'));
    symlinkSync('/nonexistent', join(patches, 'link-1-1.patch'));
    for (const name of ['a--1.patch', 'x-constructor-1-1.patch', 'notes-toString-9-1.patch']) {
      writeFileSync(join(patches, name), 'kept');
    }
    const s = { ...settings(patches), keepSeconds: 1 };
    await build(out, '||a.example^\n', s, 100 * HOUR);
    const v2 = await build(out, '||b.example^\n', s, 101 * HOUR);
    expect(v2.warnings).toEqual([]);
    expect(statSync(join(patches, 'dir-1-1.patch')).isDirectory()).toBe(true);
    for (const name of ['a--1.patch', 'x-constructor-1-1.patch', 'notes-toString-9-1.patch']) {
      expect(readFileSync(join(patches, name), 'utf8')).toBe('kept');
    }
  });

  test('the temporary file a killed build left beside a patch is removed by the next build', async () => {
    const out = join(dir, 'list.txt');
    const patches = join(dir, 'patches');
    const s = settings(patches);
    await build(out, '||a.example^\n', s, 100 * HOUR);
    const left = join(patches, '.list-100-1.patch.4242.k3x9q2ab.tmp');
    writeFileSync(left, 'half a patch');
    await build(out, '||b.example^\n', s, 101 * HOUR);
    expect(existsSync(left)).toBe(false);
  });

  test('a leading tag flc never writes (an absolute path) names no file flc writes', async () => {
    const out = join(dir, 'list.txt');
    const far = join(dir, 'far.patch');
    writeFileSync(far, 'untouched');
    writeFileSync(out, `! Diff-Path: ${far}\n||a.example^\n`);
    const v2 = await build(out, '||a.example^\n||b.example^\n', settings(join(dir, 'patches')), 101 * HOUR);
    expect(tagOf(v2.list)).toBe('patches/list-101-1.patch');
    expect(readFileSync(far, 'utf8')).toBe('untouched');
  });

  // A client walks the tag from the list's URL, which follows the paths as given: links stay.
  test('a list given through a linked folder names its patches by the given paths', async () => {
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'pub'));
    // The output is replaced where its links lead (outputTarget resolves it); -o named pub/list.txt.
    const out = join(dir, 'real', 'list.txt');
    const s = { ...settings(join(dir, 'pub', 'patches')), listDir: join(dir, 'pub') };
    const v1 = await build(out, '||a.example^\n', s, 100 * HOUR);
    expect(tagOf(v1.list)).toBe('patches/list-100-1.patch');
  });

  test('a patches folder that is a link elsewhere keeps its name in the tag', async () => {
    mkdirSync(join(dir, 'www'));
    mkdirSync(join(dir, 'data'));
    symlinkSync(join(dir, 'data'), join(dir, 'www', 'patches'));
    const out = join(dir, 'www', 'list.txt');
    const s = settings(join(dir, 'www', 'patches'));
    const v1 = await build(out, '||a.example^\n', s, 100 * HOUR);
    expect(tagOf(v1.list)).toBe('patches/list-100-1.patch');
    const v2 = await build(out, '||a.example^\n||b.example^\n', s, 101 * HOUR);
    expect(v2.warnings).toEqual([]);
    expect(readFileSync(join(dir, 'data', 'list-100-1.patch'), 'utf8')).toContain('||b.example^');
  });

  test('a previous patch that cannot be replaced is warned about once the list is out', async () => {
    const out = join(dir, 'list.txt');
    const s = settings(join(dir, 'patches'));
    const v1 = await build(out, '||a.example^\n', s, 100 * HOUR);
    const named = join(dir, tagOf(v1.list));
    rmSync(named);
    mkdirSync(named);
    const v2 = await build(out, '||a.example^\n||b.example^\n', s, 101 * HOUR);
    expect(readFileSync(out, 'utf8')).toBe(v2.list);
    expect(v2.warnings.join('\n')).toContain('could not be written');
  });

  test('the list keeps its permissions', async () => {
    const out = join(dir, 'list.txt');
    const s = settings(join(dir, 'patches'));
    await build(out, '||a.example^\n', s, 100 * HOUR);
    chmodSync(out, 0o640);
    await build(out, '||a.example^\n||b.example^\n', s, 101 * HOUR);
    expect(statSync(out).mode & 0o777).toBe(0o640);
  });
});
