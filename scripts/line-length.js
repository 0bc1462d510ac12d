#!/usr/bin/env node
// Lines of at most 120 characters in every tracked source file, generated files aside; the
// formatter keeps code within that width but leaves long strings and comments alone.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const LIMIT = 120;
const GENERATED = new Set(['src/core/rules/psl-data.ts', 'src/core/engine/wasm/kernel-binary.ts']);
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'src', 'test', 'bench', 'scripts', 'bin'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => /\.(ts|cts|js|wat)$/.test(f) && !GENERATED.has(f));

let long = 0;
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue; // listed but deleted in the work tree
  }
  text.split('\n').forEach((line, i) => {
    if (line.length <= LIMIT) return;
    long += 1;
    process.stdout.write(`${file}:${i + 1}: ${line.length} characters (at most ${LIMIT})\n`);
  });
}
if (long > 0) {
  process.stdout.write(`${long} lines longer than ${LIMIT} characters\n`);
  process.exit(1);
}
