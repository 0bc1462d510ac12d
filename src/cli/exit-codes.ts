// The one place CLI errors become an exit code and the lines printed for them; BaseCommand and the
// bundled fast path (fast-commands.ts) both report through it. No oclif import, so the fast path
// loads the framework only when it must. Messages are printed as they are, one line per failure,
// never wrapped at a fixed width (oclif's own printer splits words at 80 columns).
import {
  ConfigError,
  type ConfigIssue,
  type FlcError,
  type IssueSource,
  InputError,
  PatternError,
} from '../core/errors/index.js';
import { didYouMean } from '../core/config/suggest.js';

/** Exit codes: 0 ok, 1 the operation failed, 2 the input (flags or configuration) is wrong. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

type CliError = Error & { oclif?: { exit?: number }; parse?: unknown; flags?: string[]; code?: string };

/** oclif's parse errors (unknown flag, bad value, missing argument) carry the parser's state. */
function isParseError(err: CliError): boolean {
  return err.parse !== undefined;
}

export function exitCodeFor(err: CliError): number {
  if (err.oclif?.exit !== undefined) return err.oclif.exit;
  return err instanceof ConfigError || err instanceof PatternError || err instanceof InputError
    ? EXIT.usage
    : EXIT.failure;
}

export interface ErrorContext {
  /** `flc compile`, for the pointer to its help. */
  command?: string;
  /** The command's flag names (without dashes), for suggestions. */
  flags?: readonly string[];
}

/** The lines printed for `err`: `Error: …` per failure, then any detail (a code frame) as it is. */
export function errorLines(err: CliError, context: ErrorContext = {}): string[] {
  if (err instanceof ConfigError) {
    const where = err.file ? ` in ${err.file}` : '';
    return groupedIssues(err.issues, err.sources).flatMap(({ at, message }) => {
      const [first, ...detail] = message.split('\n');
      return [`Error: invalid configuration${where}: ${at}${first}`, ...detail];
    });
  }
  if (err instanceof InputError) return err.messages.map((m) => `Error: ${m}`);
  if (isParseError(err)) {
    // oclif's text: a header line for several failures, one line each, and its pointer to --help.
    const lines = err.message
      .split('\n')
      .map((line) => line.trim())
      .filter(
        (line) => line && !/^See more help with --help$/.test(line) && !/^The following errors? occurred:$/.test(line),
      );
    // `Missing 1 required arg:` and the lines under it (`rule  the rule …`: a name, then its help)
    // are one failure.
    const failures: string[] = [];
    for (const line of lines) {
      const last = failures.length - 1;
      if (last >= 0 && /^Missing \d+ required args?:/.test(failures[last])) {
        failures[last] += `${failures[last].endsWith(':') ? ' ' : '; '}${line.replace(/\s{2,}/, ', ')}`;
      } else failures.push(line);
    }
    const unknown = err.flags?.[0]?.replace(/^-+/, '').split('=')[0];
    const hint = unknown !== undefined && context.flags ? didYouMean(unknown, context.flags, (f) => `--${f}`) : '';
    const help = context.command ? ` See "${context.command} --help".` : ' See --help.';
    return failures.map((line, i) =>
      i === failures.length - 1 ? `Error: ${line.replace(/\.$/, '')}.${hint}${help}` : `Error: ${line}`,
    );
  }
  return err.message.split('\n').map((line, i) => (i === 0 ? `Error: ${line}` : line));
}

/**
 * One entry per distinct problem: the same mistake in many sources is one line naming each source
 * by its name or path (`sources "EasyList", "lists/b.txt": transformations[0]: …`), not one line
 * per index.
 */
function groupedIssues(
  issues: readonly ConfigIssue[],
  sources: ReadonlyMap<ConfigIssue, IssueSource>,
): { at: string; message: string }[] {
  const groups = new Map<string, { labels: string[]; path: string; message: string }>();
  const out: ({ at: string; message: string } | { labels: string[]; path: string; message: string })[] = [];
  for (const issue of issues) {
    const source = sources.get(issue);
    if (!source) {
      out.push({ at: issue.path ? `${issue.path}: ` : '', message: issue.message });
      continue;
    }
    const key = `${source.path}\n${issue.message}`;
    let group = groups.get(key);
    if (!group) {
      group = { labels: [], path: source.path, message: issue.message };
      groups.set(key, group);
      out.push(group);
    }
    if (!group.labels.includes(source.label)) group.labels.push(source.label);
  }
  return out.map((entry) => {
    if (!('labels' in entry)) return entry;
    const names = entry.labels.map((label) => JSON.stringify(label)).join(', ');
    const field = entry.path ? `${entry.path}: ` : '';
    return { at: `source${entry.labels.length > 1 ? 's' : ''} ${names}: ${field}`, message: entry.message };
  });
}

/** Prints `err` on stderr and returns its exit code. */
export function reportError(err: CliError, context: ErrorContext = {}): number {
  process.stderr.write(`${errorLines(err, context).join('\n')}\n`);
  return exitCodeFor(err);
}

type Raise = (message: string, options: { exit: number; code?: string }) => never;

/** oclif's error for `err` (which `raise`, oclif's `error`, makes), for the `--json` envelope. */
export function asCliError(err: CliError, raise: Raise): Error & { exitCode?: number } {
  if (err.oclif) return err;
  const exit = exitCodeFor(err);
  try {
    raise(err.message, { exit, code: (err as FlcError).code });
  } catch (cliError) {
    // oclif reads `exitCode` when it reports an error as JSON, `oclif.exit` otherwise.
    return Object.assign(cliError as Error, { exitCode: exit });
  }
}
