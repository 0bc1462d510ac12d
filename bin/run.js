#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

/** Commands in dist/flc-fast.cjs (src/cli/fast-commands.ts). */
const FAST = new Set(['compile', 'ast-walk', 'validate-rule']);
const BUNDLE = fileURLToPath(new URL('../dist/flc-fast.cjs', import.meta.url));

// `flc --version` answers without loading oclif (a third of a second on a small machine), with
// the text oclif prints: `<name>/<version> <platform>-<arch> node-<version>`.
if (process.argv[2] === '--version') {
  const os = await import('node:os');
  const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const wsl = () => {
    if (os.platform() !== 'linux') return false;
    if (os.release().toLowerCase().includes('microsoft')) return true;
    try {
      return readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft');
    } catch {
      return false;
    }
  };
  const arch = os.arch() === 'ia32' ? 'x86' : os.arch();
  process.stdout.write(`${pjson.name}/${pjson.version} ${wsl() ? 'wsl' : os.platform()}-${arch} node-${process.version}\n`);
} else if (FAST.has(process.argv[2]) && !process.argv.includes('--help') && existsSync(BUNDLE)) {
  // The data commands run from one bundle whose compiled code is cached between runs (on every
  // Node), with the same classes, flags, output and exit codes; help still goes through oclif.
  const { loadBundle } = await import('../dist/cli/bundle-loader.js');
  const [, , id, ...argv] = process.argv;
  const root = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');
  const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  // A walk of a long list uses a second thread; started now, it loads its code while this one does.
  const walking = id === 'ast-walk' || (id === 'compile' && argv.includes('--ast-walk'));
  const { startWalkWorker, walkWorker } = walking ? await import('../dist/cli/walk-start.js') : {};
  const walkHelper = walking ? startWalkWorker(walkWorker(root)) : null;
  const outcome = await loadBundle(BUNDLE, { key: id }).exports.runFast(id, argv, root, pjson, { walkHelper });
  if (outcome === 'usage') {
    void walkHelper?.worker.terminate();
    await runOclif();
  }
} else {
  await runOclif();
}

async function runOclif() {
  // Node 22+ caches compiled code on disk between runs; Node 20 has no such cache.
  module.enableCompileCache?.();
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}

