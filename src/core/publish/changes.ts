/**
 * What a compiled list holds, source by source, read back from its text: the rules under each
 * source's header block (`! Source: …`, in the format's comment syntax). The shrink guard counts
 * them, the change summary compares them, and the differential updates ask whether two lists
 * differ in more than their header. Reading the text, not the compile, lets flc compare with any
 * list it wrote before, or with a list another build wrote.
 */
import { isComment } from '../rules/rule-text.js';

/** The rules of one source block, keyed by the source (`source#2` for its second block). */
export interface SourceBlock {
  source: string;
  rules: string[];
}

export interface ListContents {
  /** In list order; a list without source headers is one block keyed `""`. */
  blocks: SourceBlock[];
  ruleCount: number;
}

const SOURCE_RE = /^[!#;] Source: (.*)$/;
const COMMENT_START = /^[!#;]/;

/** The lines of `text` (LF or CRLF), without a final empty one. */
export function textLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A rule line of a list in any format: not blank, not a comment of the adblock or the DNS syntaxes. */
function isRuleLine(line: string): boolean {
  const text = line.trim();
  // `; x` comments the RPZ and unbound formats; `# x` and `! x` the others.
  return text.length > 0 && !text.startsWith(';') && !isComment(text);
}

/** The list's rules by source block. */
export function listContents(text: string): ListContents {
  const lines = textLines(text);
  const blocks: SourceBlock[] = [];
  const seen = new Map<string, number>();
  let current: SourceBlock | null = null;
  const loose: string[] = [];
  let ruleCount = 0;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const header = SOURCE_RE.exec(line);
    // A source block opens with a bare comment marker line, then (name and) source, then the marker.
    if (header && COMMENT_START.test(lines[i + 1] ?? '') && (lines[i + 1] ?? '').trim().length === 1) {
      const n = (seen.get(header[1]) ?? 0) + 1;
      seen.set(header[1], n);
      current = { source: n === 1 ? header[1] : `${header[1]}#${n}`, rules: [] };
      blocks.push(current);
      continue;
    }
    if (!isRuleLine(line)) continue;
    ruleCount += 1;
    (current?.rules ?? loose).push(line);
  }
  if (blocks.length === 0) return { blocks: [{ source: '', rules: loose }], ruleCount };
  return { blocks, ruleCount };
}

/** Rules counted per source, as the shrink guard and the state file keep them. */
export function sourceCounts(contents: ListContents): Map<string, number> {
  return new Map(contents.blocks.map((b) => [b.source, b.rules.length]));
}

export interface RuleChanges {
  added: string[];
  removed: string[];
}

export interface ListChanges {
  total: RuleChanges;
  /** Every source of either list with a change, in the new list's order, then the old's. */
  sources: ({ source: string } & RuleChanges)[];
}

function difference(from: readonly string[], to: readonly string[]): RuleChanges {
  const before = new Set(from);
  const after = new Set(to);
  return { added: [...after].filter((r) => !before.has(r)), removed: [...before].filter((r) => !after.has(r)) };
}

/** The rules `next` adds to and removes from `previous`, in all and per source. */
export function listChanges(previous: ListContents, next: ListContents): ListChanges {
  const total = difference(
    previous.blocks.flatMap((b) => b.rules),
    next.blocks.flatMap((b) => b.rules),
  );
  const old = new Map(previous.blocks.map((b) => [b.source, b.rules]));
  const keys = [...new Set([...next.blocks.map((b) => b.source), ...old.keys()])];
  const fresh = new Map(next.blocks.map((b) => [b.source, b.rules]));
  const sources = keys
    .map((source) => ({ source, ...difference(old.get(source) ?? [], fresh.get(source) ?? []) }))
    .filter((c) => c.added.length > 0 || c.removed.length > 0);
  return { total, sources };
}

/** Header lines that change on every build or that the differential updates write. */
const VOLATILE_RE = /^! (?:Last modified|Diff-Path|Checksum): /;
const HEADER_SCAN = 50;

/**
 * True when the two lists differ only in their `Last modified`, `Diff-Path` and `Checksum`
 * header lines (in the first 50 lines, where the differential updates look for them).
 */
export function sameBesidesHeader(a: string, b: string): boolean {
  const strip = (text: string) => {
    const lines = text.split('\n');
    return lines.filter((line, i) => i >= HEADER_SCAN || !VOLATILE_RE.test(line)).join('\n');
  };
  return strip(a) === strip(b);
}
