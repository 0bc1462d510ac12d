import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { isAscii } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';

// The loader runs in a child process each time: its cache is written when the process exits.
const LOADER = resolve(import.meta.dirname, '../../dist/cli/bundle-loader.cjs');
let dir: string;
let bundle: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-loader-'));
  bundle = join(dir, 'bundle.cjs');
  writeFileSync(bundle, 'exports.answer = 40 + 2;\nexports.where = __filename;\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Loads `bundle` as bin/run.js does on Node 20 and reports `{cache, answer}`. */
function load(env: Record<string, string>, nodeFlags: string[] = []): { cache: string; answer: number; where: string } {
  const script = `const { loadBundle } = require(${JSON.stringify(LOADER)});
    const r = loadBundle(${JSON.stringify(bundle)}, { key: 'test', forceScript: true });
    console.log(JSON.stringify({ cache: r.cache, answer: r.exports.answer, where: r.exports.where }));`;
  const r = spawnSync(process.execPath, [...nodeFlags, '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, NODE_COMPILE_CACHE: '', NODE_DISABLE_COMPILE_CACHE: '', ...env },
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const cacheFiles = (folder: string) => readdirSync(folder).filter((f) => f.endsWith('.bin'));

describe('loadBundle with a V8 code cache', () => {
  test('compiles and caches on the first run, uses the cache on the next', () => {
    const env = { NODE_COMPILE_CACHE: join(dir, 'cache') };
    expect(load(env)).toEqual({ cache: 'miss', answer: 42, where: bundle });
    expect(cacheFiles(join(dir, 'cache'))).toHaveLength(1);
    expect(load(env)).toEqual({ cache: 'hit', answer: 42, where: bundle });
  });

  test('a damaged cache file is not used, and is replaced', () => {
    const env = { NODE_COMPILE_CACHE: join(dir, 'cache') };
    load(env);
    const [name] = cacheFiles(join(dir, 'cache'));
    const file = join(dir, 'cache', name);
    const data = readFileSync(file);
    data[data.length - 10] ^= 0xff;
    writeFileSync(file, data);
    expect(load(env).cache).toBe('miss');
    expect(load(env).cache).toBe('hit');
    writeFileSync(file, 'nonsense');
    expect(load(env).cache).toBe('miss');
  });

  test('the payload check changes with any one byte, at any alignment, and with the length', () => {
    const { check } = createRequire(import.meta.url)(LOADER) as { check: (b: Uint8Array) => Buffer };
    const base = Buffer.from(Array.from({ length: 67 }, (_, i) => (i * 37) & 0xff));
    for (const offset of [0, 1, 3]) {
      const bytes = new Uint8Array(base.length + offset).subarray(offset);
      bytes.set(base);
      const seen = new Set([check(bytes).toString('hex')]);
      for (let i = 0; i < bytes.length; i += 1) {
        bytes[i] ^= 0x40;
        seen.add(check(bytes).toString('hex'));
        bytes[i] ^= 0x40;
      }
      expect(seen.size).toBe(bytes.length + 1);
      expect(check(bytes).equals(check(base))).toBe(true);
      expect(check(bytes.subarray(0, bytes.length - 1)).equals(check(bytes))).toBe(false);
    }
  });

  test('a rebuilt bundle gets a new cache file and the old one is removed', () => {
    const env = { NODE_COMPILE_CACHE: join(dir, 'cache') };
    load(env);
    const [before] = cacheFiles(join(dir, 'cache'));
    // Same length, other code: V8 alone would accept the old data.
    writeFileSync(bundle, 'exports.answer = 40 + 3;\nexports.where = __filename;\n');
    utimesSync(bundle, new Date(), new Date(Date.now() + 5_000));
    expect(load(env)).toMatchObject({ cache: 'miss', answer: 43 });
    const after = cacheFiles(join(dir, 'cache'));
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
  });

  test('data V8 refuses (other flags) is recompiled', () => {
    const env = { NODE_COMPILE_CACHE: join(dir, 'cache') };
    load(env);
    expect(load(env, ['--max-old-space-size=200'])).toMatchObject({ cache: 'rejected', answer: 42 });
  });

  test('NODE_DISABLE_COMPILE_CACHE turns it off', () => {
    expect(load({ NODE_COMPILE_CACHE: join(dir, 'cache'), NODE_DISABLE_COMPILE_CACHE: '1' })).toMatchObject({
      cache: 'off',
      answer: 42,
    });
    expect(readdirSync(dir)).not.toContain('cache');
  });

  test('the default folder is private to the user, and not used when others can write it', () => {
    const env = { TMPDIR: dir };
    expect(load(env).cache).toBe('miss');
    const [folder] = readdirSync(dir).filter((f) => f.startsWith('flc-compile-cache-'));
    expect(folder).toBeDefined();
    expect(load(env).cache).toBe('hit');
    chmodSync(join(dir, folder), 0o777);
    expect(load(env).cache).toBe('off');
  });

  test('a bundle with non-ASCII text loads as UTF-8; the built bundle is ASCII, read the fast way', () => {
    writeFileSync(bundle, "exports.answer = 'Wärting 😀'.length;\nexports.where = __filename;\n");
    expect(load({ NODE_COMPILE_CACHE: join(dir, 'cache') }).answer).toBe(10);
    expect(isAscii(readFileSync(resolve(import.meta.dirname, '../../dist/flc-fast.cjs')))).toBe(true);
  });

  test('an unwritable cache folder only costs the cache', () => {
    mkdirSync(join(dir, 'cache'));
    writeFileSync(join(dir, 'cache', 'blocker'), '');
    expect(load({ NODE_COMPILE_CACHE: join(dir, 'cache', 'blocker') })).toMatchObject({ cache: 'miss', answer: 42 });
  });
});
