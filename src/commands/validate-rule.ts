import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import type { ValidateRuleResult } from '../core/ast/validate-rule.js';

export default class ValidateRule extends BaseCommand {
  static override summary = 'Check one filter rule: validity, type, dialect and syntax tree.';
  static override description = [
    "Parses RULE with AGTree. Tolerant mode (the default) accepts what AGTree's tolerant parser accepts; " +
      '--strict parses non-tolerantly and also rejects unknown modifiers, broken regular expressions, ' +
      'whitespace in patterns, bare patterns and bad domains.',
    "--test-url matches the rule against the URL's hostname only.",
    'Beside the syntax verdict, each Validate transformation of a compile says whether it keeps the rule, ' +
      'and why not (a compile judges the line as hostlist-compiler does, not with AGTree).',
    'Exit codes: 0 valid, 1 invalid, 2 usage error. ' +
      '--json prints exactly the HTTP 200 body of POST /api/validate-rule.',
  ].join('\n');

  static override examples = [
    "<%= config.bin %> validate-rule '||ads.example.com^$third-party'",
    "<%= config.bin %> validate-rule '||example.com^$dnsrewrite=NOERROR;A;1.2.3.4' --strict",
    "<%= config.bin %> validate-rule '||example.com^' --test-url https://sub.example.com/page --json",
  ];

  static override enableJsonFlag = true;
  static override args = {
    // ignoreStdin: otherwise oclif takes a piped standard input for a missing RULE when the pipe
    // closes within 10 ms of parsing, and reports RULE missing when it closes later. RULE comes
    // from the command line only; reading a pipe that never closes would hang instead.
    rule: Args.string({ required: true, description: 'the rule (quote it for the shell)', ignoreStdin: true }),
  };
  static override flags = {
    strict: Flags.boolean({ description: 'non-tolerant parse plus per-product checks' }),
    'test-url': Flags.string({ description: 'a URL whose hostname the rule is matched against' }),
  };

  async run(): Promise<ValidateRuleResult> {
    const { args, flags } = await this.parse(ValidateRule);
    const { validateRule } = await import('../core/ast/validate-rule.js');
    const result = validateRule({ rule: args.rule, strict: flags.strict, testUrl: flags['test-url'] });
    if (!result.valid) process.exitCode = 1;
    if (!this.jsonEnabled()) this.out(describe(result));
    return result;
  }
}

/** One line per Validate transformation: what a compile with it does with the rule. */
function compileVerdicts(r: ValidateRuleResult): string[] {
  const width = Math.max(...Object.keys(r.validators).map((n) => n.length));
  return Object.entries(r.validators).map(([name, v]) => {
    const as = v.rule === undefined ? '' : ` (as ${v.rule})`;
    return `compile  ${name.padEnd(width)}  ${v.kept ? `keeps it${as}` : `drops it${as}: ${v.reason}`}`;
  });
}

function describe(r: ValidateRuleResult): string {
  if (!r.valid) return [`invalid  ${r.ruleType}: ${r.error}`, ...compileVerdicts(r)].join('\n');
  const lines = [`valid  ${r.ruleType} (${r.category}, ${r.syntax})`, ...compileVerdicts(r)];
  if (r.testUrl !== undefined) {
    if (r.matchResult === undefined) lines.push(`match  not applicable to a ${r.category.toLowerCase()} rule`);
    else {
      const kind = r.matchResult && r.exception ? ' (an exception rule: it allows)' : '';
      lines.push(`match  ${r.matchResult ? 'yes' : 'no'}${kind} for ${new URL(r.testUrl).hostname}`);
    }
    if (r.dependsOn)
      lines.push(
        `note   also depends on ${r.dependsOn.map((m) => `$${m}`).join(', ')}, which a hostname cannot decide`,
      );
  }
  return lines.join('\n');
}
