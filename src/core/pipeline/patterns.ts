import { PatternError } from '../errors/index.js';

/** One exclusion/inclusion pattern: `/regex/`, a `*` wildcard, or a plain substring. */
export interface LinePattern {
  readonly text: string;
  test(line: string): boolean;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range
const ASCII = /^[\x00-\x7f]*$/;

/**
 * `text` as a case-insensitive JavaScript regular expression without the `u` flag sees it
 * (ECMAScript Canonicalize): each code unit in upper case when that is one code unit, except
 * that nothing outside ASCII becomes ASCII (so `ſ` is not `s`, nor `ı` `i`).
 */
export function canonicalCase(text: string): string {
  if (ASCII.test(text)) return text.toUpperCase();
  return text.replace(/[\s\S]/g, (unit) => {
    const upper = unit.toUpperCase();
    return upper.length !== 1 || (unit.charCodeAt(0) >= 128 && upper.charCodeAt(0) < 128) ? unit : upper;
  });
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
  if (!text.includes('*')) return { text, test: (line) => line.includes(text) };
  // The reference's `^a[\s\S]*b…$` with the `i` flag, without backtracking: the first part must
  // start the line, the last end it, and each part between is found at its leftmost place after
  // the one before (never worse for the parts after it). Nothing is revisited, so `a*a*a*a*b`
  // over a long line of `a`s answers at once instead of never.
  const parts = canonicalCase(text).split(/\*+/);
  const first = parts[0];
  const last = parts[parts.length - 1];
  const middle = parts.slice(1, -1).filter((p) => p.length > 0);
  const test = (line: string) => {
    if (line.length < first.length + last.length || !line.startsWith(first) || !line.endsWith(last)) return false;
    let at = first.length;
    const end = line.length - last.length;
    for (const part of middle) {
      const found = line.indexOf(part, at);
      if (found < 0 || found + part.length > end) return false;
      at = found + part.length;
    }
    return true;
  };
  return { text, test: (line) => test(canonicalCase(line)) };
}

/** No pattern: larger than any index. */
const NONE = 0x7fffffff;

/**
 * Aho–Corasick over UTF-16 code units: one left-to-right scan of a line finds every pattern in
 * it, however many there are. `first(line)` is the smallest index (into the texts given) of a
 * pattern the line contains, or NONE. A hundred thousand patterns make millions of states, so
 * the trie lives in typed arrays (an object per state would not fit), sized once: it has at most
 * one state per code unit of the texts, and as a state has one parent, it also names the edge
 * into it. A state's children are a list: its first child, then each child's next sibling.
 */
class SubstringAutomaton {
  /** Per state, 0 for none (the root is nobody's child). */
  private child: Int32Array;
  private sibling: Int32Array;
  /** Per state: the code unit on the edge into it. */
  private code: Uint16Array;
  private readonly fail: Int32Array;
  /** Per state: the smallest index among the patterns ending there, itself or through `fail`. */
  private best: Int32Array;
  /** The root's moves on ASCII as a table: most code units of a line are read at the root. */
  private readonly root = new Int32Array(128);

  constructor(texts: readonly (string | null)[]) {
    const size = texts.reduce((n, text) => n + (text?.length ?? 0), 1);
    this.child = new Int32Array(size);
    this.sibling = new Int32Array(size);
    this.code = new Uint16Array(size);
    this.best = new Int32Array(size).fill(NONE);
    let states = 1;
    texts.forEach((text, index) => {
      if (text === null) return;
      let state = 0;
      for (let i = 0; i < text.length; i += 1) {
        const code = text.charCodeAt(i);
        let to = this.move(state, code);
        if (to === 0) {
          to = states++;
          this.code[to] = code;
          this.sibling[to] = this.child[state];
          this.child[state] = to;
        }
        state = to;
      }
      this.best[state] = Math.min(this.best[state], index);
    });
    // The texts' length only bounds the states: the arrays keep the part in use.
    this.child = this.child.slice(0, states);
    this.sibling = this.sibling.slice(0, states);
    this.code = this.code.slice(0, states);
    this.best = this.best.slice(0, states);
    this.fail = new Int32Array(states);
    // Breadth first, so a state's fail target (a shorter string) is finished before the state.
    const queue = new Int32Array(states);
    let queued = 0;
    for (let s = this.child[0]; s !== 0; s = this.sibling[s]) {
      queue[queued++] = s;
      if (this.code[s] < 128) this.root[this.code[s]] = s;
    }
    for (let q = 0; q < queued; q += 1) {
      const state = queue[q];
      for (let s = this.child[state]; s !== 0; s = this.sibling[s]) {
        this.fail[s] = this.step(this.fail[state], this.code[s]);
        this.best[s] = Math.min(this.best[s], this.best[this.fail[s]]);
        queue[queued++] = s;
      }
    }
  }

  /** Where `state` moves on `code`, or 0. */
  private move(state: number, code: number): number {
    for (let s = this.child[state]; s !== 0; s = this.sibling[s]) if (this.code[s] === code) return s;
    return 0;
  }

  private step(state: number, code: number): number {
    for (let s = state; ; s = this.fail[s]) {
      const to = this.move(s, code);
      if (to !== 0 || s === 0) return to;
    }
  }

  first(line: string): number {
    let state = 0;
    let first = NONE;
    for (let i = 0; i < line.length; i += 1) {
      const code = line.charCodeAt(i);
      state = state === 0 && code < 128 ? this.root[code] : this.step(state, code);
      if (this.best[state] < first) first = this.best[state];
    }
    return first;
  }
}

/** A regex's source, or a wildcard's longest literal part, as one alternative of a set's prefilter. */
function prefilterSource(text: string, isRegex: boolean): string | null {
  // Case-insensitive alternatives with characters outside ASCII (`ſ`, the Kelvin sign, ...) can
  // make V8's joined regex miss what each matches alone (`/ſ|S|S/i` fails on `s` in Node 20):
  // such a pattern, or one that may name such a character by an escape, is tried alone.
  if (!ASCII.test(text) || /\\[uxpPc0-9]/.test(text)) return null;
  // Backreferences and named groups change meaning when group numbers shift or names meet.
  if (isRegex) return /\(\?<[^=!]/.test(text) ? null : text.slice(1, -1);
  const longest = text.split(/\*+/).reduce((a, b) => (b.length > a.length ? b : a));
  return longest.length > 0 ? longest.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&') : null;
}

/**
 * Characters of source per prefilter regex: V8 compiles a long regular expression in more than
 * linear time and refuses one past a size, so the sources are joined in slices of this length
 * and a longer pattern is tried alone.
 */
const PREFILTER_CHARS = 4_000;

/**
 * A compiled set of patterns that names, for a line, the first pattern in the given order that
 * matches it. Plain substrings share one automaton; regexes and the wildcards' longest literal
 * parts are joined into prefilter regexes (whose `i` sees case as the wildcards do), and each of
 * those patterns is tried alone only on the lines that its prefilter lets through.
 */
export class PatternSet {
  readonly size: number;
  private readonly texts: string[];
  private readonly plain: SubstringAutomaton;
  /** The regexes and wildcards, in order, each with the prefilter it can match only behind, or -1. */
  private readonly special: { index: number; filter: number; pattern: LinePattern }[] = [];
  private readonly prefilters: RegExp[];

  constructor(texts: readonly string[]) {
    this.texts = [...new Set(texts)].filter((t) => t.length > 0);
    this.size = this.texts.length;
    // Each alternative in its own group, so none can reach into the next.
    const prefilters: string[] = [];
    const plain = this.texts.map((text, index) => {
      const isRegex = text.startsWith('/') && text.endsWith('/') && text.length > 2;
      if (!isRegex && !text.includes('*')) return text;
      const source = prefilterSource(text, isRegex);
      let filter = -1;
      if (source !== null && source.length <= PREFILTER_CHARS) {
        const last = prefilters.length - 1;
        if (last >= 0 && prefilters[last].length + source.length <= PREFILTER_CHARS)
          prefilters[last] += `|(?:${source})`;
        else prefilters.push(`(?:${source})`);
        filter = prefilters.length - 1;
      }
      this.special.push({ index, filter, pattern: compilePattern(text) });
      return null;
    });
    this.plain = new SubstringAutomaton(plain);
    this.prefilters = prefilters.map((source) => new RegExp(source, 'mi'));
  }

  /** The first pattern (in the order given) that matches the line, or null. */
  match(line: string): string | null {
    const first = this.plain.first(line);
    let tested = -1;
    let passes = true;
    for (const { index, filter, pattern } of this.special) {
      if (index > first) break;
      // Filters come in order, so each is tested at most once per line.
      if (filter >= 0 && filter !== tested) {
        tested = filter;
        passes = this.prefilters[filter].test(line);
      }
      if ((filter < 0 || passes) && pattern.test(line)) return pattern.text;
    }
    // Not `texts[first] ?? null`: reading past the end deoptimizes `match` on every miss.
    return first < this.texts.length ? this.texts[first] : null;
  }
}
