import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { OUTPUT_FORMATS } from '../core/output/formats.js';
import type { Explanation } from '../core/explain/explain.js';

export default class Explain extends BaseCommand {
  static override summary = 'Say why a domain is blocked, or not, by a compiled list.';
  static override description = [
    'Compiles the configuration (as flc compile does, or reads the --report a compile wrote) and lists, for the ' +
      'domain and its parents, the kept rules that block or allow it, each with its source and line, and the rules ' +
      'about it removed on the way, each with its step and reason. The answer is for the output format ' +
      '(--format, else the configuration\'s "format", else adblock): a hosts list blocks no subdomains.',
    'Exit codes: 0 blocked, 3 not blocked, 1 the compile failed, 2 usage, configuration or report error.',
  ].join('\n');

  static override usage = [
    '<%= command.id %> DOMAIN [-c FILE | --from-report FILE] [--format F] [--no-cache] [--json]',
  ];

  // Run in this package's examples/ folder, whose files they name (report.json: compile's --help example).
  static override examples = [
    'cd examples && <%= config.bin %> explain ads.example.com -c flc.config.json',
    'cd examples && <%= config.bin %> explain video.example.org -c flc.config.json --json',
    'cd examples && <%= config.bin %> explain tracker.example.com --from-report report.json',
  ];

  static override enableJsonFlag = true;
  static override args = {
    domain: Args.string({ required: true, description: 'the domain (IDN or punycode) or a URL', ignoreStdin: true }),
  };
  static override flags = {
    config: Flags.string({
      char: 'c',
      description: 'configuration file (JSON, YAML or TOML); searched for when omitted',
    }),
    'from-report': Flags.string({
      description: 'read a report of flc compile --report instead of compiling',
      exclusive: ['config', 'format'],
      helpValue: 'FILE',
    }),
    format: Flags.option({ options: OUTPUT_FORMATS, description: 'the output format the answer is for' })(),
    'no-cache': Flags.boolean({ description: 'do not read or write the HTTP cache' }),
  };

  async run(): Promise<Explanation> {
    const { args, flags } = await this.parse(Explain);
    // Loaded here, not at the top: oclif imports every command to list them.
    const { runExplain, explanationText } = await import('../cli/explain-run.js');
    const explanation = await runExplain(args.domain, flags, this.config.version);
    if (!this.jsonEnabled()) this.out(explanationText(explanation));
    process.exitCode = explanation.blocked ? 0 : 3;
    return explanation;
  }
}
