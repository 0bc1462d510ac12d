import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  existsSync,
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
import { writeFileAtomic } from '../../src/node/atomic-write.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-atomic-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

describe('writeFileAtomic', () => {
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
