#!/usr/bin/env node
// Part of `npm run build`, after tsc: bundles dist/cli/fast-commands.js (compile, ast-walk, explain,
// validate-rule) and everything they import into dist/flc-fast.cjs, which bin/run.js loads with a
// V8 code cache. CommonJS, because Node 20 can only use cached code for scripts (vm.Script).
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
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
  // jsonc-parser's main build is UMD, whose inner require()s esbuild cannot follow; its ES build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // tldts' ES module build, whose Public Suffix List module can be loaded when first used (below);
  // its CommonJS build (what 'tldts' resolves to) builds the list at start-up.
  plugins: [
    {
      // zod re-exports all its ~60 locales as `z.locales`: 0.4 MB of the bundle, and time to
      // initialise on a run without the code cache. flc uses the
      // English messages zod sets by default and no other locale, so the bundle keeps only `en`
      // (as bundlers drop moment's locales).
      name: 'zod-english-only',
      setup(b) {
        const zod = join(root, 'node_modules/zod/v4/');
        b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
          args.importer.startsWith(zod)
            ? { path: join(zod, 'locales/index.js'), namespace: 'zod-english-only' }
            : undefined,
        );
        b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
          contents: "export { default as en } from './en.js';",
          resolveDir: join(zod, 'locales'),
        }));
      },
    },
    {
      name: 'tldts-es6',
      setup(b) {
        // Only for flc's own imports: AGTree depends on a tldts of its own.
        b.onResolve({ filter: /^tldts$/ }, (args) =>
          args.importer.startsWith(join(root, 'dist'))
            ? { path: join(root, 'node_modules/tldts/dist/es6/index.js') }
            : undefined,
        );
      },
    },
    {
      // tldts builds its Public Suffix List trie from ~11,000 object literals when its data module
      // loads, on every start. Validate needs tldts only for the lines the WebAssembly kernel leaves
      // undecided (engine/validate.ts), so the data module is required when tldts first looks a
      // suffix up: esbuild evaluates a required ES module on that first require.
      name: 'tldts-lazy-trie',
      setup(b) {
        const file = join(root, 'node_modules/tldts/dist/es6/src/suffix-trie.js');
        b.onLoad({ filter: /[\\/]tldts[\\/]dist[\\/]es6[\\/]src[\\/]suffix-trie\.js$/ }, (args) => {
          if (args.path !== file) return undefined;
          const edits = [
            [
              "import { exceptions, rules } from './data/trie';",
              "let trie;\nconst data = () => (trie ??= require('./data/trie.js'));",
            ],
            ['lookupInTrie(hostnameParts, exceptions, ', 'lookupInTrie(hostnameParts, data().exceptions, '],
            ['lookupInTrie(hostnameParts, rules, ', 'lookupInTrie(hostnameParts, data().rules, '],
          ];
          let contents = readFileSync(file, 'utf8');
          for (const [from, to] of edits) {
            // A new tldts may change this file: fail the build rather than bundle it half-edited.
            if (contents.split(from).length !== 2)
              throw new Error(`tldts-lazy-trie: ${file} no longer has one "${from}"`);
            contents = contents.replace(from, to);
          }
          const code = contents.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').replace(/data\(\)\.(exceptions|rules)/g, '');
          if (/\b(exceptions|rules)\b/.test(code)) {
            throw new Error(`tldts-lazy-trie: ${file} uses the trie somewhere this plugin does not edit`);
          }
          return { contents, loader: 'js' };
        });
      },
    },
  ],
  logLevel: 'warning',
  // Any `import.meta` left in bundled code would be empty in CommonJS: fail instead.
  logOverride: { 'empty-import-meta': 'error' },
});
if (result.errors.length > 0) process.exit(1);

// Escape what esbuild leaves outside ASCII (comments, a regular expression literal), so the
// loader reads the bundle as a one-byte string (much cheaper than UTF-8 with a few
// wide characters). \uXXXX means the same in strings, regular expressions and comments.
const out = join(root, 'dist/flc-fast.cjs');
const text = readFileSync(out, 'utf8').replace(
  /[\u0080-\uffff]/g,
  (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
);
writeFileSync(out, text);
