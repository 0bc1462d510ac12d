import { PatternError } from '../errors/pattern-error.js';

/** One exclusion/inclusion pattern: `/regex/`, a `*` wildcard, or a plain substring. */
export interface LinePattern {
  readonly text: string;
  test(line: string): boolean;
}

/**
 * A code unit as a case-insensitive JavaScript regular expression without the `u` flag sees it
 * (ECMAScript Canonicalize): its upper case when that is one code unit, except that nothing
 * outside ASCII becomes ASCII (so `ſ` is not `s`, nor `ı` `i`).
 */
function canonicalUnit(unit: string): string {
  const upper = unit.toUpperCase();
  if (upper.length !== 1) return unit;
  return unit.charCodeAt(0) >= 128 && upper.charCodeAt(0) < 128 ? unit : upper;
}

/** `text` with every code unit canonicalized; ASCII text takes the fast path. */
export function canonicalCase(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range
  if (/^[\x00-\x7f]*$/.test(text)) return text.toUpperCase();
  let out = '';
  for (let i = 0; i < text.length; i += 1) out += canonicalUnit(text[i]);
  return out;
}

/**
 * A `*` wildcard matched as the reference's `^a[\s\S]*b…$` with the `i` flag, without
 * backtracking: the first part must start the line, the last end it, and each part between
 * is found at its leftmost place after the one before (the leftmost place is never worse
 * for the parts after it). Each part is searched once, left to right, from where the one
 * before ended, and nothing is revisited: the work is bounded by the line's length times the
 * pattern's, so `a*a*a*a*b` over a long line of `a`s answers at once instead of never.
 */
export function wildcardMatcher(text: string): (canonicalLine: string) => boolean {
  const parts = canonicalCase(text).split(/\*+/);
  const first = parts[0];
  const last = parts[parts.length - 1];
  const middle = parts.slice(1, -1).filter((p) => p.length > 0);
  const least = first.length + last.length;
  return (line) => {
    if (line.length < least || !line.startsWith(first) || !line.endsWith(last)) return false;
    let at = first.length;
    const end = line.length - last.length;
    for (const part of middle) {
      const found = line.indexOf(part, at);
      if (found < 0 || found + part.length > end) return false;
      at = found + part.length;
    }
    return true;
  };
}

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
    const matches = wildcardMatcher(text);
    return { text, test: (line) => matches(canonicalCase(line)) };
  }
  return { text, test: (line) => line.includes(text) };
}

/**
 * A compiled set of patterns. Plain substrings are checked in one pass per line
 * against a map of their first characters, so thousands of patterns stay cheap.
 */
export class PatternSet {
  readonly size: number;
  /** Regex and wildcard patterns, in their order (the first that matches is the one reported). */
  private readonly special: { text: string; regex?: LinePattern; wildcard?: (canonicalLine: string) => boolean }[] = [];
  private readonly plainByFirst = new Map<string, string[]>();

  constructor(texts: readonly string[]) {
    const unique = [...new Set(texts)].filter((t) => t.length > 0);
    this.size = unique.length;
    for (const text of unique) {
      if (text.startsWith('/') && text.endsWith('/') && text.length > 2) {
        this.special.push({ text, regex: compilePattern(text) });
      } else if (text.includes('*')) {
        this.special.push({ text, wildcard: wildcardMatcher(text) });
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
    let canonical: string | undefined;
    for (const p of this.special) {
      if (p.wildcard) {
        canonical ??= canonicalCase(line);
        if (p.wildcard(canonical)) return p.text;
      } else if (p.regex?.test(line)) return p.text;
    }
    return null;
  }
}
