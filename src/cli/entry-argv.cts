// What bin/run.js makes of the words after `flc`, so that the reference compiler's command line
// (`hostlist-compiler -c FILE -o FILE`, `-i SRC…`, `-h`, `--version`) works as it is: words that
// start with a flag mean `compile`. CommonJS, so that bin/run.js requires it before anything else.

/** The oclif argv for `argv`, and whether it asks only for the version. */
export function entryArgv(argv: readonly string[]): { argv: string[]; version: boolean } {
  const [first] = argv;
  if ((first === '--version' || first === 'version') && argv.length === 1) return { argv: [...argv], version: true };
  if (first === undefined || !first.startsWith('-') || first === '-') return { argv: [...argv], version: false };
  // `flc -h` and `flc --help` alone: the list of commands, as `flc help` shows it.
  if (argv.length === 1 && (first === '-h' || first === '--help')) return { argv: ['--help'], version: false };
  return { argv: ['compile', ...argv], version: false };
}
