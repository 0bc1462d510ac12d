import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { stripVolatile } from './reference.js';

const ROOT = resolve(import.meta.dirname, '../..');
const REFERENCE_CLI = join(
  dirname(createRequire(import.meta.url).resolve('@adguard/hostlist-compiler/package.json')),
  'src/cli.js',
);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function run(script: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [script, ...args],
      { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** `flc ARGS` as a user runs it (bin/run.js in a child process), from `cwd`. */
export function runFlc(args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<CliRun> {
  return run(join(ROOT, 'bin/run.js'), args, cwd, env);
}

/** `hostlist-compiler ARGS` (the reference's own CLI, 2.1.1), from `cwd`. */
export function runReference(args: readonly string[], cwd: string): Promise<CliRun> {
  return run(REFERENCE_CLI, args, cwd);
}

/** A list file's lines without the lines that differ between any two runs (time, compiler). */
export function listFile(path: string): string[] | null {
  return existsSync(path) ? stripVolatile(readFileSync(path, 'utf8').split('\n')) : null;
}
