#!/usr/bin/env node
// CommonJS (bin/package.json says so): a CommonJS entry starts sooner than an ES module, whose
// loader Node would set up first. The fast path below stays CommonJS throughout; oclif and
// the walk's ES modules are imported only when they are used.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/** Commands in dist/flc-fast.cjs (src/cli/fast-commands.ts). */
const FAST = new Set(['compile', 'ast-walk', 'validate-rule', 'explain']);
const ROOT = join(__dirname, '..');
const BUNDLE = join(ROOT, 'dist/flc-fast.cjs');

async function main() {
  const entry = require('../dist/cli/entry-argv.cjs').entryArgv(process.argv.slice(2));
  process.argv.splice(2, Infinity, ...entry.argv);
  // `flc --version` (and `flc version`) answers without loading oclif (a third of a second on a
  // small machine) with the bare version, as hostlist-compiler prints it; `flc version --verbose`
  // goes through oclif and adds the platform and Node.js.
  if (entry.version) {
    process.stdout.write(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
  } else if (
    FAST.has(process.argv[2]) &&
    !process.argv.includes('--help') &&
    !process.argv.includes('-h') &&
    existsSync(BUNDLE)
  ) {
    // The data commands run from one bundle whose compiled code is cached between runs (on every
    // Node), with the same classes, flags, output and exit codes; help still goes through oclif.
    const { loadBundle } = require('../dist/cli/bundle-loader.cjs');
    const [, , id, ...argv] = process.argv;
    const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    // A walk of a long list uses a second thread; started now, it loads its code while this one does.
    const walking = id === 'ast-walk' || (id === 'compile' && argv.includes('--ast-walk'));
    const { startWalkWorker, walkWorker } = walking ? await import('../dist/cli/walk-start.js') : {};
    const walkHelper = walking ? startWalkWorker(walkWorker(ROOT)) : null;
    await loadBundle(BUNDLE, { key: id }).exports.runFast(id, argv, ROOT, pjson, { walkHelper });
  } else {
    await runOclif();
  }
}

async function runOclif() {
  // Node 22+ caches compiled code on disk between runs; Node 20 has no such cache.
  require('node:module').enableCompileCache?.();
  const { execute } = await import('@oclif/core');
  // The package root, not this file: oclif looks for package.json upwards from `dir`, and
  // bin/package.json (which only makes this folder CommonJS) is not the one it wants.
  await execute({ dir: ROOT });
}

void main();
