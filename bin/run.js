#!/usr/bin/env node
import module from 'node:module';

// `flc --version` answers without loading oclif (a third of a second on a small machine), with
// the text oclif prints: `<name>/<version> <platform>-<arch> node-<version>`.
if (process.argv[2] === '--version') {
  const { readFileSync } = await import('node:fs');
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
} else {
  // Node 22+ caches compiled code on disk between runs; Node 20 has no such cache.
  module.enableCompileCache?.();
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
