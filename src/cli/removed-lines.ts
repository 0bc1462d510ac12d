// Where removed lines go while a compile runs: `-v` prints each on stderr, `--report` streams
// them into its JSON (docs/report.md). Neither holds them: a list that loses a million lines
// costs no more memory than one that loses none.
import type { CompileReport, RemovedLine } from '../core/pipeline/report.js';
import type { OutputStream } from '../node/atomic-write.js';

/** `-v`'s line for a removed rule: the transformation, the rule, where it came from and why. */
export function removedLineText(line: RemovedLine): string {
  const where = line.source === null ? '' : ` (${line.source}${line.line === null ? '' : `:${line.line}`})`;
  return `${line.transformation}: removed ${line.text}${where}: ${line.reason}`;
}

/**
 * The report's JSON, written as the compile goes: `removed` first, one entry a line as each is
 * removed, then `sources` and `transformations` when the compile is done.
 */
export function streamedReport(out: OutputStream) {
  let count = 0;
  out.write('{\n  "removed": [');
  return {
    removed(line: RemovedLine): void {
      out.write(`${count === 0 ? '' : ','}\n    ${JSON.stringify(line)}`);
      count += 1;
    },
    finish(report: Pick<CompileReport, 'sources' | 'transformations'>): void {
      const field = (name: string, value: unknown) =>
        `  "${name}": ${JSON.stringify(value, null, 2).replaceAll('\n', '\n  ')}`;
      out.write(`${count === 0 ? '' : '\n  '}],\n${field('sources', report.sources)},\n`);
      out.write(`${field('transformations', report.transformations)}\n}\n`);
    },
  };
}
