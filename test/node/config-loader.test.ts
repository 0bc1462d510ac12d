import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfigFile } from '../../src/node/config-loader.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loadConfigFile', () => {
  test('a valid configuration loads, warning of its aliases; an invalid one says what is wrong', async () => {
    const valid = file('valid.yaml', 'name: x\nsources:\n  - url: a.txt\ntransformations: [compress]\n');
    const loaded = await loadConfigFile(valid);
    expect(loaded.config).toEqual({ name: 'x', sources: [{ source: 'a.txt' }], transformations: ['Compress'] });
    expect(loaded.warnings).toHaveLength(2);
    expect(loaded.file).toBe(valid);

    const invalid = file('invalid.json', JSON.stringify({ name: 'x', sources: [{ source: 'a.txt', typo: 1 }] }));
    await expect(loadConfigFile(invalid)).rejects.toThrow(/sources\[0\].*unknown key "typo"/);
  });
});
