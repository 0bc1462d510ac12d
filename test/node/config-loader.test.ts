import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Counts loads of the module that holds the schema library, which a valid configuration skips.
const schemaLoads = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/core/config/parse.js', async (importOriginal) => {
  schemaLoads.count += 1;
  return importOriginal();
});

const { loadConfigFile } = await import('../../src/node/config-loader.js');

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
  test('a valid configuration loads without the schema library; an invalid one loads it for the message', async () => {
    const valid = file('valid.yaml', 'name: x\nsources:\n  - url: a.txt\ntransformations: [compress]\n');
    const loaded = await loadConfigFile(valid);
    expect(loaded.config).toEqual({ name: 'x', sources: [{ source: 'a.txt' }], transformations: ['Compress'] });
    expect(loaded.warnings).toHaveLength(2);
    expect(loaded.file).toBe(valid);
    expect(schemaLoads.count).toBe(0);

    const invalid = file('invalid.json', JSON.stringify({ name: 'x', sources: [{ source: 'a.txt', typo: 1 }] }));
    await expect(loadConfigFile(invalid)).rejects.toThrow(/sources\[0\].*unknown key "typo"/);
    expect(schemaLoads.count).toBe(1);
  });
});
