import { PatternError } from '../errors/pattern-error.js';

/** One exclusion/inclusion pattern: `/regex/`, a `*` wildcard, or a plain substring. */
export interface LinePattern {
  readonly text: string;
  test(line: string): boolean;
}

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

/** Compiles one pattern with the reference's rules (regex and wildcard are case-insensitive). */
export function compilePattern(text: string): LinePattern {
  if (text.startsWith('/') && text.endsWith('/') && text.length > 2) {
    let re: RegExp;
    try {
      re = new RegExp(text.substring(1, text.length - 1), 'mi');
    } catch (e) {
      throw new PatternError(text, (e as Error).message);
    }
    return { text, test: (line) => re.test(line) };
  }
  if (text.includes('*')) {
    const re = new RegExp(`^${text.split(/\*+/).map(escapeRegExp).join('[\\s\\S]*')}$`, 'i');
    return { text, test: (line) => re.test(line) };
  }
  return { text, test: (line) => line.includes(text) };
}

/**
 * A compiled set of patterns. Plain substrings are checked in one pass per line
 * against a map of their first characters, so thousands of patterns stay cheap.
 */
export class PatternSet {
  readonly size: number;
  private readonly special: LinePattern[] = [];
  private readonly plainByFirst = new Map<string, string[]>();

  constructor(texts: readonly string[]) {
    const unique = [...new Set(texts)].filter((t) => t.length > 0);
    this.size = unique.length;
    for (const text of unique) {
      const pattern = compilePattern(text);
      if (text.includes('*') || (text.startsWith('/') && text.endsWith('/') && text.length > 2)) {
        this.special.push(pattern);
      } else {
        const bucket = this.plainByFirst.get(text[0]);
        if (bucket) bucket.push(text);
        else this.plainByFirst.set(text[0], [text]);
      }
    }
  }

  /** The first pattern matching the line, or null. */
  match(line: string): string | null {
    if (this.plainByFirst.size > 0) {
      for (let i = 0; i < line.length; i += 1) {
        const bucket = this.plainByFirst.get(line[i]);
        if (!bucket) continue;
        for (const p of bucket) if (line.startsWith(p, i)) return p;
      }
    }
    for (const p of this.special) if (p.test(line)) return p.text;
    return null;
  }
}
