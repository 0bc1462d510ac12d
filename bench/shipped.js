// Benchmarks run `bin/run.js` as an installed package runs it: with the oclif command manifest
// that `npm pack` writes (without one, oclif imports every command module to list them). The
// manifest is written for the run and removed afterwards, as `prepack`/`postpack` do.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export function withManifest(root, run) {
  const manifest = join(root, 'oclif.manifest.json');
  const existed = existsSync(manifest);
  if (!existed) execFileSync(process.execPath, [join(root, 'scripts/oclif-manifest.js')], { stdio: 'ignore' });
  const cleanup = () => {
    if (!existed) rmSync(manifest, { force: true });
  };
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  try {
    return run();
  } finally {
    cleanup();
  }
}
