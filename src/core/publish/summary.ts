/**
 * The change summary's words: a line per source and one in all for stderr, a short Markdown
 * table for a CI job's summary page (GitHub's `GITHUB_STEP_SUMMARY`).
 */
import type { ListChanges, ListContents } from './changes.js';

/** What else a run wants said beside its changes. */
export interface SummaryNotes {
  /** Sources compiled from a cached copy, with the copy's age. */
  stale: { source: string; age: string }[];
  /** Rules the dead-domain check removed. */
  deadDomains: number;
  /** What became of the list: written, left as it was, or refused. */
  outcome: string;
}

const signed = (added: number, removed: number) => `+${added} -${removed}`;

/** The stderr lines: the total, then each source that changed. */
export function summaryLines(changes: ListChanges, comparedTo: string): string[] {
  const { added, removed } = changes.total;
  const lines = [`flc: changes since ${comparedTo}: ${signed(added.length, removed.length)} rules`];
  for (const s of changes.sources) {
    lines.push(`flc:   ${s.source || '(the list)'}: ${signed(s.added.length, s.removed.length)}`);
  }
  return lines;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The Markdown appended to the step summary: a row per source with its rules now and its changes. */
export function summaryMarkdown(
  title: string,
  list: ListContents,
  changes: ListChanges | null,
  notes: SummaryNotes,
): string {
  const bySource = new Map(changes?.sources.map((s) => [s.source, s]));
  const rows = list.blocks.map((b) => {
    const c = bySource.get(b.source);
    const delta = changes ? ` ${c ? c.added.length : 0} | ${c ? c.removed.length : 0} |` : '';
    return `| ${cell(b.source || '(the list)')} | ${b.rules.length} |${delta}`;
  });
  const head = changes
    ? '| Source | Rules | Added | Removed |\n|---|---:|---:|---:|'
    : '| Source | Rules |\n|---|---:|';
  const total = changes
    ? `| **Total** | ${list.ruleCount} | ${changes.total.added.length} | ${changes.total.removed.length} |`
    : `| **Total** | ${list.ruleCount} |`;
  const out = [`### ${cell(title)}`, '', notes.outcome, '', head, ...rows, total, ''];
  for (const s of notes.stale) out.push(`- stale: ${cell(s.source)} (cached copy ${s.age} old)`);
  if (notes.deadDomains > 0) out.push(`- dead domains removed: ${notes.deadDomains}`);
  if (notes.stale.length > 0 || notes.deadDomains > 0) out.push('');
  return `${out.join('\n')}\n`;
}
