/**
 * The shrink guard: a build that would publish far fewer rules than the previous one (a source
 * that answered an empty body or an error page) is refused, naming the sources whose rules fell.
 */
import { FlcError } from '../errors/index.js';

export interface ShrinkBounds {
  /** Refuse a list more than this many percent smaller than the previous one. */
  maxShrinkPercent?: number;
  /** Refuse a list with fewer rules than this. */
  minRules?: number;
}

/** Rule counts of a list: in all and per source (keys as `listContents` makes them). */
export interface ListCounts {
  ruleCount: number;
  sources: ReadonlyMap<string, number>;
}

export interface FallenSource {
  source: string;
  before: number;
  after: number;
}

/** The build crossed a shrink bound; nothing was written. */
export class ShrinkGuardError extends FlcError {
  readonly fallen: FallenSource[];

  /** `fallen`: null when there was no previous build to compare with. */
  constructor(problems: string[], fallen: FallenSource[] | null) {
    const lines = (fallen ?? []).map(({ source, before, after }) => {
      const percent = before === 0 ? '' : `, ${(((after - before) / before) * 100).toFixed(1)}%`;
      return `  ${source || '(the list)'}: ${before} -> ${after} rules (${after - before}${percent})`;
    });
    const which =
      fallen === null ? [] : lines.length > 0 ? ['sources whose kept rules fell:', ...lines] : ['no source fell'];
    super('SHRINK_GUARD', [`${problems.join('; ')}; nothing was written`, ...which].join('\n'));
    this.name = 'ShrinkGuardError';
    this.fallen = fallen ?? [];
  }
}

const percentText = (n: number) => `${Number(n.toFixed(1))}%`;

/** Throws ShrinkGuardError when `next` crosses a bound against `previous` (null: no previous build). */
export function checkShrink(bounds: ShrinkBounds, previous: ListCounts | null, next: ListCounts): void {
  const problems: string[] = [];
  if (bounds.minRules !== undefined && next.ruleCount < bounds.minRules) {
    problems.push(`the list would have ${next.ruleCount} rules, fewer than the minimum of ${bounds.minRules}`);
  }
  const max = bounds.maxShrinkPercent;
  if (max !== undefined && previous !== null && previous.ruleCount > 0) {
    const shrink = ((previous.ruleCount - next.ruleCount) / previous.ruleCount) * 100;
    if (shrink > max) {
      problems.push(
        `the list would shrink by ${percentText(shrink)} (${previous.ruleCount} -> ${next.ruleCount} rules), ` +
          `more than the maximum of ${percentText(max)}`,
      );
    }
  }
  if (problems.length === 0) return;
  if (previous === null) throw new ShrinkGuardError(problems, null);
  const fallen: FallenSource[] = [];
  for (const [source, before] of previous.sources) {
    const after = next.sources.get(source) ?? 0;
    if (after < before) fallen.push({ source, before, after });
  }
  fallen.sort((a, b) => b.before - b.after - (a.before - a.after));
  throw new ShrinkGuardError(problems, fallen);
}
