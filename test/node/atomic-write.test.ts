import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  chmodSync,
  existsSync,
  statSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOutput, outputTarget, writeFileAtomic, writeOutput } from '../../src/node/atomic-write.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-atomic-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

describe('writeFileAtomic', () => {
  test('a replaced file keeps its permissions (the list and the report); a new one gets the default', async () => {
    const list = join(dir, 'kept-mode.txt');
    const report = join(dir, 'kept-mode.json');
    for (const file of [list, report]) {
      writeFileSync(file, 'old');
      chmodSync(file, 0o640);
    }
    await writeOutput(await outputTarget(list), 'new list');
    const stream = openOutput(await outputTarget(report));
    stream.write('{}');
    await stream.commit();
    for (const file of [list, report]) expect(statSync(file).mode & 0o777, file).toBe(0o640);
    expect(readFileSync(list, 'utf8')).toBe('new list');
    await writeFileAtomic(join(dir, 'fresh.txt'), 'x');
    expect(statSync(join(dir, 'fresh.txt')).mode & 0o777).toBe(0o666 & ~process.umask());
  });

  test('writes the whole file, into folders it makes, and leaves no temporary file', async () => {
    const file = join(dir, 'a', 'b', 'list.txt');
    await writeFileAtomic(file, '||a.example^\n');
    await writeFileAtomic(file, new TextEncoder().encode('||b.example^\n'));
    expect(readFileSync(file, 'utf8')).toBe('||b.example^\n');
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['list.txt']);
  });

  test('a temporary name someone planted a link at fails the write and is left alone', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    const file = join(dir, 'out.txt');
    const planted = join(dir, `.out.txt.${process.pid}.${(0.5).toString(36).slice(2, 10)}.tmp`);
    symlinkSync(victim, planted);
    await expect(writeFileAtomic(file, '||a.example^\n')).rejects.toThrow(/EEXIST/);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(existsSync(file)).toBe(false);
  });
});
