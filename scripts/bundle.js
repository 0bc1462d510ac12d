#!/usr/bin/env node
// Part of `npm run build`, after tsc: bundles dist/cli/fast-commands.js (compile, ast-walk,
// validate-rule) and everything they import into dist/flc-fast.cjs, which bin/run.js loads with a
// V8 code cache. CommonJS, because Node 20 can only use cached code for scripts (vm.Script).
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const result = await build({
  entryPoints: [join(root, 'dist/cli/fast-commands.js')],
  outfile: join(root, 'dist/flc-fast.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // oclif requires TypeScript only to run .ts commands in development; never in this bundle.
  external: ['typescript'],
  logLevel: 'warning',
  // Any `import.meta` left in bundled code would be empty in CommonJS: fail instead.
  logOverride: { 'empty-import-meta': 'error' },
});
if (result.errors.length > 0) process.exit(1);
