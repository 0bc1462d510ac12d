// Publishing a compiled list from CI: the shrink guard before anything is written, the list with
// its differential-update patch (or nothing, when only its header would change), the state file,
// and the change summary on stderr, in the report and in the CI job's summary page.
import { appendFile, readFile } from 'node:fs/promises';
import { InputError } from '../../core/errors/index.js';
import {
  type ListChanges,
  listChanges,
  listContents,
  sameBesidesHeader,
  sourceCounts,
} from '../../core/publish/changes.js';
import { checkShrink, type ListCounts, type ShrinkBounds } from '../../core/publish/guard.js';
import { summaryLines, summaryMarkdown, type SummaryNotes } from '../../core/publish/summary.js';
import { writeFileAtomic } from '../atomic-write.js';
import { type DiffSettings, leadingDiffPath, writeWithPatch } from './diff-patches.js';
import { readState, stateFileOf, writeState } from './state.js';

export interface PublishPlan {
  /** The list's regular file (`-o`); null when it goes to stdout or a stream, which the caller writes. */
  output: string | null;
  diff: DiffSettings | null;
  bounds: ShrinkBounds;
  /** The list to compare with; the previous output when null and the output is a file. */
  compareTo: string | null;
  /** Where the Markdown summary is appended (`GITHUB_STEP_SUMMARY`), or null. */
  stepSummary: string | null;
}

export interface Changes extends ListChanges {
  comparedTo: string;
}

export interface PublishOutcome {
  /** False when the caller is to write the list (stdout), or when nothing changed but the header. */
  written: boolean;
  changes: Changes | null;
  /** Lines the written list has beyond the compiled text (the `Diff-Path` header). */
  headerLines: number;
}

const guarded = (b: ShrinkBounds) => b.maxShrinkPercent !== undefined || b.minRules !== undefined;

/** True when a plan asks for more than writing the list. */
export function planned(plan: PublishPlan): boolean {
  return plan.diff !== null || guarded(plan.bounds) || plan.compareTo !== null || plan.stepSummary !== null;
}

async function readIfThere(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Publishes `text` as `plan` says. The guard throws ShrinkGuardError before anything is written;
 * `note` prints a line on stderr.
 */
export async function publish(
  plan: PublishPlan,
  text: string,
  notes: Omit<SummaryNotes, 'outcome'>,
  now: Date,
  note: (line: string) => void,
): Promise<PublishOutcome> {
  const previous = plan.output === null ? null : await readIfThere(plan.output);
  const next = listContents(text);
  const counts: ListCounts = { ruleCount: next.ruleCount, sources: sourceCounts(next) };
  const stateFile = plan.output === null ? null : stateFileOf(plan.output);
  if (guarded(plan.bounds)) {
    const state = stateFile === null ? null : await readState(stateFile);
    const before = previous === null ? null : listContents(previous);
    const baseline = state ?? (before && { ruleCount: before.ruleCount, sources: sourceCounts(before) });
    checkShrink(plan.bounds, baseline, counts);
  }
  let changes: Changes | null = null;
  if (plan.compareTo !== null) {
    const other = await readIfThere(plan.compareTo);
    if (other === null) throw new InputError([`--compare-to ${plan.compareTo}: no such file`]);
    changes = { comparedTo: plan.compareTo, ...listChanges(listContents(other), next) };
  } else if (previous !== null && plan.output !== null) {
    changes = { comparedTo: plan.output, ...listChanges(listContents(previous), next) };
  }
  let written = false;
  let headerLines = 0;
  let outcome = 'The list goes to standard output.';
  if (plan.output !== null) {
    // A previous list without a `Diff-Path` (written before --diff-patches was on) gets one. Only
    // the tag it opens with is its own: a source's `! Diff-Path:` line in a list written without
    // --diff-patches names a file the builder would write the patch to, wherever it is.
    const patched = previous !== null && leadingDiffPath(previous) !== null;
    if (plan.diff !== null && patched && sameBesidesHeader(previous, text)) {
      outcome = `Only the header would change: ${plan.output} and its patches are left as they were.`;
      note(`flc: only the header would change; ${plan.output} and its patches are left as they were`);
    } else {
      // A previous list without a `Diff-Path` names no patch to fill: the list starts afresh.
      if (plan.diff !== null) {
        const withHeader = await writeWithPatch(plan.output, patched ? previous : null, text, plan.diff, note);
        headerLines = lineBreaks(withHeader) - lineBreaks(text);
      } else await writeFileAtomic(plan.output, text);
      if (stateFile !== null && (plan.diff !== null || guarded(plan.bounds))) await writeState(stateFile, counts, now);
      written = true;
      const withPatch = plan.diff ? ', with a differential-update patch' : '';
      outcome = `Wrote ${plan.output}: ${next.ruleCount} rules${withPatch}.`;
    }
  }
  if (changes !== null) for (const line of summaryLines(changes, changes.comparedTo)) note(line);
  if (plan.stepSummary !== null) {
    const title = `flc: ${plan.output ?? 'list'}`;
    try {
      await appendFile(plan.stepSummary, summaryMarkdown(title, next, changes, { ...notes, outcome }));
    } catch (e) {
      // The list is out; a summary page that cannot be written is not worth failing the job for.
      note(`Warning: GITHUB_STEP_SUMMARY ${plan.stepSummary}: ${(e as Error).message}`);
    }
  }
  return { written, changes, headerLines };
}

function lineBreaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
