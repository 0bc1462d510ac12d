import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Readable } from 'node:stream';
import { DEFAULT_HTTP, NodeSourceReader } from '../../src/node/source-reader.js';
import { compile } from '../../src/core/pipeline/compile.js';
import type { Configuration } from '../../src/core/config/schema.js';

let dir: string;
const reader = () => new NodeSourceReader({ ...DEFAULT_HTTP, baseDir: dir, cacheDir: null, userAgent: 'flc-test' });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-reader-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('NodeSourceReader.readBytes', () => {
  test('a UTF-8 file comes back as its bytes, by path or file: URL', async () => {
    const path = join(dir, 'list.txt');
    writeFileSync(path, '\ufeff||münchen.de^\n0.0.0.0 a.example\n');
    const r = reader();
    const { bytes, length } = (await r.readBytes(path))!;
    expect(bytes).toBeInstanceOf(Uint8Array);
    const list = bytes.subarray(0, length);
    expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(list)).toBe(await r.read(path));
    const byUrl = (await r.readBytes(pathToFileURL(path).href))!;
    expect(Array.from(byUrl.bytes.subarray(0, byUrl.length))).toEqual(Array.from(list));
  });

  test('the bytes come with as much room after them, so a compile appends without copying the list', async () => {
    const path = join(dir, 'long.txt');
    const text = Array.from({ length: 20_000 }, (_, i) => `0.0.0.0 host${i}.example`).join('\n');
    writeFileSync(path, text);
    const { bytes, length } = (await reader().readBytes(path))!;
    expect(length).toBe(Buffer.byteLength(text));
    expect(bytes.length).toBeGreaterThanOrEqual(2 * length);
    expect(Buffer.from(bytes.subarray(0, length)).toString()).toBe(text);
  });

  test.skipIf(!existsSync('/proc/version'))(
    'a file whose size the system does not give (/proc/version) is read to its end',
    async () => {
      const { bytes, length } = (await reader().readBytes('/proc/version'))!;
      expect(length).toBeGreaterThan(0);
      expect(Buffer.from(bytes.subarray(0, length)).toString()).toBe(readFileSync('/proc/version', 'utf8'));
    },
  );

  test('an aborted read rejects with the abort', async () => {
    const path = join(dir, 'abort.txt');
    writeFileSync(path, '||a.example^\n');
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(reader().readBytes(path, controller.signal)).rejects.toThrow('stopped');
  });

  test('a file that is not UTF-8 is left to read(), which decodes it as before', async () => {
    const path = join(dir, 'latin1.txt');
    writeFileSync(path, Buffer.from([0x7c, 0x7c, 0x61, 0xe9, 0x2e, 0x64, 0x65, 0x5e, 0x0a]));
    const r = reader();
    expect(await r.readBytes(path)).toBeNull();
    expect(await r.read(path)).toBe('||a\ufffd.de^\n');
  });

  test('missing files and other schemes fail as read() fails', async () => {
    const r = reader();
    await expect(r.readBytes(join(dir, 'missing.txt'))).rejects.toThrow(/no such file/);
    await expect(r.readBytes('ftp://lists.example/list.txt')).rejects.toThrow(/unsupported URL scheme/);
    await expect(r.readBytes(dir)).rejects.toThrow(/is a directory/);
  });
});

describe('standard input listed as two sources', () => {
  // One read of standard input serves both; each source's rewrites are its own, not written over by the other's.
  test('each list keeps its own rewrites, as the string engine gives them', async () => {
    const input = '||x.example^$third-party\n||b\u00fccher.example^\n||y.example^$important\n';
    const config: Configuration = {
      name: 'Twice',
      sources: [
        { source: '-', transformations: ['RemoveModifiers'] },
        { source: '-', transformations: ['ConvertToAscii'] },
      ],
    };
    const outputs = [];
    for (const packed of [true, false]) {
      const r = new NodeSourceReader({
        ...DEFAULT_HTTP,
        baseDir: dir,
        cacheDir: null,
        userAgent: 'flc-test',
        stdin: Readable.from([Buffer.from(input)]),
      });
      outputs.push(
        (await compile(config, { reader: r, packed, compiler: 'flc-test' })).lines.filter(
          (l) => !l.startsWith('! Last modified'),
        ),
      );
    }
    expect(outputs[0]).toContain('||x.example^');
    expect(outputs[0]).toContain('||xn--bcher-kva.example^');
    expect(outputs[0]).toEqual(outputs[1]);
  });
});

describe('NodeSourceReader and saved rule sets', () => {
  test('flc-ruleset:<id> is refused by name, not looked for as a file (even when one has that name)', () => {
    writeFileSync(join(dir, 'flc-ruleset:abc'), '||x.example^\n');
    for (const ref of ['flc-ruleset:abc', 'FLC-RULESET:abc']) {
      expect(() => reader().resolve(ref, null)).toThrow(/refused: saved rule sets .* are read only by flc serve/);
    }
  });
});
