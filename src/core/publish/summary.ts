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

/**
 * The most sources the lines and the table name one by one. Source blocks are read from the
 * list's text, where a source can write header lines of its own: thousands of made-up blocks
 * would otherwise fill the job's log and push the summary past what CI shows (GitHub: 1 MiB).
 */
export const MOST_SOURCES = 100;

const more = (n: number) => `${n} more source${n === 1 ? '' : 's'}`;

/** A name as the lines and the table give it: at most 200 characters. */
const short = (text: string) => (text.length > 200 ? `${[...text.slice(0, 200)].slice(0, -1).join('')}…` : text);

/** The stderr lines: the total, then each source that changed. */
export function summaryLines(changes: ListChanges, comparedTo: string): string[] {
  const { added, removed } = changes.total;
  const lines = [`flc: changes since ${comparedTo}: ${signed(added.length, removed.length)} rules`];
  for (const s of changes.sources.slice(0, MOST_SOURCES)) {
    lines.push(`flc:   ${short(s.source) || '(the list)'}: ${signed(s.added.length, s.removed.length)}`);
  }
  if (changes.sources.length > MOST_SOURCES) lines.push(`flc:   and ${more(changes.sources.length - MOST_SOURCES)}`);
  return lines;
}

/** A table cell: one line, `|` escaped. */
const cell = (text: string) =>
  short(text)
    .replaceAll('|', '\\|')
    .replace(/[\r\n\u2028\u2029]/g, ' ');

/** The Markdown appended to the step summary: a row per source with its rules now and its changes. */
export function summaryMarkdown(
  title: string,
  list: ListContents,
  changes: ListChanges | null,
  notes: SummaryNotes,
): string {
  const bySource = new Map(changes?.sources.map((s) => [s.source, s]));
  const rows = list.blocks.slice(0, MOST_SOURCES).map((b) => {
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
  const rest = list.blocks.length - MOST_SOURCES;
  if (rest > 0) rows.push(`| and ${more(rest)} | |${changes ? ' | |' : ''}`);
  const out = [`### ${cell(title)}`, '', notes.outcome, '', head, ...rows, total, ''];
  for (const s of notes.stale) out.push(`- stale: ${cell(s.source)} (cached copy ${s.age} old)`);
  if (notes.deadDomains > 0) out.push(`- dead domains removed: ${notes.deadDomains}`);
  if (notes.stale.length > 0 || notes.deadDomains > 0) out.push('');
  return `${out.join('\n')}\n`;
}
