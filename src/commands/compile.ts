import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { COMPILE_DEFAULTS, INPUT_TYPES, parseTimeout, SOURCE_ERROR_MODES } from '../cli/compile-flags.js';
import { OUTPUT_FORMATS } from '../core/output/formats.js';
import { NODE_TYPES } from '../core/ast/node-types.js';
import { publishFlags } from '../cli/publish-flags.js';

export default class Compile extends BaseCommand {
  static override summary = 'Compile a filter list from a configuration or from inputs.';
  static override description = [
    'Downloads every source, applies the configured transformations in their fixed order and writes one list.',
    'Without -c or -i the configuration is searched in the current folder (package.json "flc" key, ' +
      '.flcrc[.json|.yaml|.yml|.toml], flc.config.{json,yaml,yml,toml}).',
    'Without -o (or with -o -) the list goes to stdout; progress and logs always go to stderr.',
    'Flags without a command mean this one: `flc -c FILE -o FILE` and `flc -i SRC -o FILE` work as with ' +
      'hostlist-compiler. Relative paths in a configuration resolve against the working directory, as there; ' +
      'in a configuration found by the search, against its own folder.',
    'Exit codes: 0 success, 1 compilation failure (a source failed, a directive is broken), ' +
      '2 usage or configuration error.',
  ].join('\n');

  // Short: oclif would list every flag's choices here (the 21 node types) and wrap them mid-word.
  static override usage = [
    '<%= command.id %> [-c FILE | -i SRC...] [-t hosts|adblock] [-o FILE|-] [--format F] [-v] [-q] [--report FILE|-]',
    '<%= command.id %> --ast-walk [--input FILE] [--ast-walk-types TYPE...] [--ast-walk-depth N]',
  ];

  // Run in this package's examples/ folder, whose files they name; a test runs each one.
  static override examples = [
    'cd examples && <%= config.bin %> -c flc.config.json -o list.txt',
    'cd examples && <%= config.bin %> -i lists/hosts.txt -o hosts.txt',
    'cd examples && <%= config.bin %> compile -c flc.config.yaml --report report.json --format hosts > hosts.txt',
    'cd examples && <%= config.bin %> compile -c flc.config.json --format hosts --hosts-address 0.0.0.0,:: > hosts.txt',
    'cd examples && <%= config.bin %> compile -c flc.config.json --format rpz -o blocklist.rpz',
  ];

  static override flags = {
    help: Flags.help({ char: 'h', description: 'show this help' }),
    version: Flags.version({ description: 'print the version' }),
    config: Flags.string({ char: 'c', description: 'configuration file (JSON, YAML or TOML)', exclusive: ['input'] }),
    input: Flags.string({
      char: 'i',
      multiple: true,
      description: 'URL or file to compile with the quick configuration; repeatable',
    }),
    'input-type': Flags.string({
      char: 't',
      options: [...INPUT_TYPES],
      default: COMPILE_DEFAULTS['input-type'],
      description: 'type of the -i inputs',
    }),
    output: Flags.string({
      char: 'o',
      description: 'output file (a regular file is replaced atomically); stdout when omitted or -',
    }),
    verbose: Flags.boolean({ char: 'v', description: 'log every transformation with its counts' }),
    quiet: Flags.boolean({ char: 'q', description: 'no progress output' }),
    report: Flags.string({
      description:
        'write a JSON report (docs/report.md): counts per step and every removed line with its reason; - for stdout',
    }),
    format: Flags.option({
      options: OUTPUT_FORMATS,
      description: 'output syntax (overrides the configuration\'s "format"; default adblock); docs/configuration.md',
    })(),
    'hosts-address': Flags.string({
      multiple: true,
      helpValue: 'ADDRESS',
      description: 'address of each --format hosts line (default 0.0.0.0); repeatable or comma-separated: 0.0.0.0,::',
    }),
    timeout: Flags.custom<number>({
      default: COMPILE_DEFAULTS.timeout,
      description: 'per-download timeout, seconds (fractions allowed)',
      parse: async (input) => parseTimeout(input),
    })(),
    retries: Flags.integer({
      default: COMPILE_DEFAULTS.retries,
      min: 0,
      description: 'retries after a 5xx, 429 or network error',
    }),
    concurrency: Flags.integer({
      default: COMPILE_DEFAULTS.concurrency,
      min: 1,
      description: 'downloads in flight at once',
    }),
    'cache-dir': Flags.string({ description: 'HTTP cache folder (default $FLC_CACHE_DIR or ~/.cache/flc)' }),
    'no-cache': Flags.boolean({ description: 'do not read or write the HTTP cache' }),
    'on-source-error': Flags.string({
      options: [...SOURCE_ERROR_MODES],
      description: 'what a failed source does (overrides the configuration); stale: its cached copy, with a warning',
    }),
    ...publishFlags,
    'ast-walk': Flags.boolean({
      description: 'walk mode: print the syntax tree of --input (or stdin) as {nodes, summary}; no compilation',
    }),
    'ast-walk-types': Flags.string({
      multiple: true,
      options: [...NODE_TYPES],
      // A value name instead of oclif's `<options: A|B|…>`, which it wraps mid-word; the list is in the description.
      helpValue: 'TYPE',
      description: `walk mode: report only these node types; repeatable (${NODE_TYPES.join(', ')})`,
    }),
    'ast-walk-depth': Flags.integer({
      min: 0,
      max: 50,
      default: COMPILE_DEFAULTS['ast-walk-depth'],
      description: 'walk mode: deepest level reported',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Compile);
    if (flags['ast-walk']) return this.walk(flags.input?.[0], flags['ast-walk-types'], flags['ast-walk-depth']);
    // Loaded here, not at the top: oclif imports every command to list them.
    const { runCompile } = await import('../cli/compile-run.js');
    await runCompile(flags, this.config.version);
  }

  /** The specification's walk mode: every node with key and index, logs on stderr only. */
  private async walk(file: string | undefined, nodeTypes: string[] | undefined, maxDepth: number): Promise<void> {
    const { readListInput, writeWalk, walkWorker, prestartedWalkWorker } = await import('../cli/walk-output.js');
    const text = await readListInput(file);
    const worker = prestartedWalkWorker(this.config) ?? walkWorker(this.config.root);
    await writeWalk(text, { nodeTypes, maxDepth, includeContext: true, worker });
  }
}
