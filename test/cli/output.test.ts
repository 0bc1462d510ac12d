import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import {
  createReadStream,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFlc } from '../support/two-clis.js';

/** Where `-o` and `--report` write: through links, into devices and pipes, `-` for stdout, never a new folder. */
let dir: string;
const LIST = '0.0.0.0 ads.example.com\n0.0.0.0 x.example.org\n';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-output-'));
  writeFileSync(join(dir, 'hosts.txt'), LIST);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('compile output targets', () => {
  test('-o through a symbolic link writes the file it names and leaves the link', async () => {
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real/list.txt'), 'old\n');
    symlinkSync(join(dir, 'real/list.txt'), join(dir, 'link.txt'));
    const run = await runFlc(['-i', 'hosts.txt', '-o', 'link.txt', '--report', 'link-report.json'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(lstatSync(join(dir, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real/list.txt'), 'utf8')).toContain('||ads.example.com^');
    expect(readdirSync(join(dir, 'real'))).toEqual(['list.txt']);
  });

  test('-o /dev/stdout and --report /dev/stderr write into the streams, replacing nothing', async () => {
    const run = await runFlc(['-i', 'hosts.txt', '-o', '/dev/stdout', '--report', '/dev/stderr', '-q'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('||ads.example.com^');
    expect(run.stderr).toContain('"transformations"');
    expect(lstatSync('/dev/stdout').isSymbolicLink()).toBe(true);
  });

  test('-o into a FIFO writes into the pipe', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const chunks: Buffer[] = [];
    const read = new Promise<string>((done, fail) => {
      createReadStream(fifo)
        .on('data', (c) => chunks.push(c as Buffer))
        .on('end', () => done(Buffer.concat(chunks).toString('utf8')))
        .on('error', fail);
    });
    const run = await runFlc(['-i', 'hosts.txt', '-o', fifo, '-q'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(await read).toContain('||ads.example.com^');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  test('-o - and --report - mean standard output', async () => {
    const list = await runFlc(['-i', 'hosts.txt', '-o', '-', '-q'], dir);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('||ads.example.com^');
    const report = await runFlc(['-i', 'hosts.txt', '-o', 'list-dash.txt', '--report', '-', '-q'], dir);
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout).transformations.length).toBeGreaterThan(0);
    expect(readdirSync(dir)).not.toContain('-');
  });

  test('a missing output folder exits 2 naming it, before anything is downloaded', async () => {
    for (const args of [
      ['-o', 'no-such-folder/list.txt'],
      ['-o', 'list-ok.txt', '--report', 'no-such-folder/report.json'],
    ]) {
      const run = await runFlc(['-i', 'hosts.txt', ...args], dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/the folder no-such-folder does not exist/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(readdirSync(dir)).not.toContain('no-such-folder');
    expect(readdirSync(dir)).not.toContain('list-ok.txt');
  });
});
