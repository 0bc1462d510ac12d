import { run } from '@oclif/core';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = pathToFileURL(resolve(import.meta.dirname, '../../package.json')).href;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `flc ARGS` in-process (the built commands in dist/), capturing stdout and
 * stderr, and turning a thrown oclif error into its exit code and printed message.
 */
export async function runCli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  const cwd = process.cwd();
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  const text = (chunk: string | Uint8Array) =>
    typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  const capture = (into: string[]) =>
    ((chunk: string | Uint8Array) => {
      into.push(text(chunk));
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  let code = 0;
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  try {
    if (opts.cwd) process.chdir(opts.cwd);
    await run(args, ROOT);
    code = Number(process.exitCode ?? 0);
  } catch (e) {
    const error = e as Error & { oclif?: { exit?: number } };
    code = error.oclif?.exit ?? 1;
    if (code !== 0) err.push(`Error: ${error.message}\n`);
  } finally {
    process.exitCode = exitCode;
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
    process.chdir(cwd);
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  return { code, stdout: out.join(''), stderr: err.join('') };
}
