// Where removed lines go while a compile runs: `-v` prints each on stderr, `--report` streams
// them into its JSON (docs/report.md), and the rules kept after them. Neither holds them: a list
// that loses a million lines costs no more memory than one that loses none.
import type { CompileReport, KeptRule, RemovedLine } from '../core/pipeline/report.js';
import type { OutputStream } from '../node/atomic-write.js';

/** `-v`'s line for a removed rule: the transformation, the rule, where it came from and why. */
export function removedLineText(line: RemovedLine): string {
  const where = line.source === null ? '' : ` (${line.source}${line.line === null ? '' : `:${line.line}`})`;
  // A rule a format writes for its name alone stays in the list.
  const verb = line.code === 'format-narrowed' ? 'narrowed' : 'removed';
  return `${line.transformation}: ${verb} ${line.text}${where}: ${line.reason}`;
}

/**
 * The report's JSON, written as the compile goes: `removed` first, one entry a line as each is
 * removed, then `kept` as the compile hands over the rules of the finished list, then `format`,
 * `sources` and `transformations` when the compile is done.
 */
export function streamedReport(out: OutputStream) {
  let count = 0;
  let inKept = false;
  out.write('{\n  "removed": [');
  const entry = (value: unknown) => {
    out.write(`${count === 0 ? '' : ','}\n    ${JSON.stringify(value)}`);
    count += 1;
  };
  const closeArray = () => out.write(count === 0 ? ']' : '\n  ]');
  const startKept = () => {
    closeArray();
    out.write(',\n  "kept": [');
    count = 0;
    inKept = true;
  };
  return {
    removed: (line: RemovedLine): void => entry(line),
    kept(rule: KeptRule): void {
      if (!inKept) startKept();
      entry(rule);
    },
    /** `extra`: fields after those, such as the change summary's `changes`. */
    finish(report: Pick<CompileReport, 'format' | 'sources' | 'transformations'>, extra: object = {}): void {
      if (!inKept) startKept();
      closeArray();
      const field = (name: string, value: unknown) =>
        `  "${name}": ${JSON.stringify(value, null, 2).replaceAll('\n', '\n  ')}`;
      out.write(`,\n${field('format', report.format)},\n${field('sources', report.sources)},\n`);
      out.write(field('transformations', report.transformations));
      for (const [name, value] of Object.entries(extra)) out.write(`,\n${field(name, value)}`);
      out.write('\n}\n');
    },
  };
}
