import { PatternError } from '../errors/index.js';

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

/** No pattern: larger than any index. */
const NONE = 0x7fffffff;

/**
 * Aho–Corasick over UTF-16 code units: one left-to-right scan of a line finds every pattern in
 * it, however many there are. `first(line)` is the smallest index (into the texts given) of a
 * pattern the line contains, or NONE. A state's moves are a list of edges in typed arrays
 * (a hundred thousand patterns make millions of states; an object per state would not fit).
 */
class SubstringAutomaton {
  /** Per state: its first edge (or -1), its fail state, and the smallest index among the patterns
   * ending there, itself or through `fail`. */
  private edge: Int32Array = new Int32Array(64).fill(-1);
  private fail: Int32Array = new Int32Array(64);
  private best: Int32Array = new Int32Array(64).fill(NONE);
  private states = 1;
  /** Per edge: its code unit, the state it leads to, and the state's next edge (or -1). */
  private code: Int32Array = new Int32Array(64);
  private to: Int32Array = new Int32Array(64);
  private sibling: Int32Array = new Int32Array(64);
  private edges = 0;
  /** The root's moves on ASCII as a table: most code units of a line are read at the root. */
  private readonly root = new Int32Array(128);

  constructor(texts: readonly (string | null)[]) {
    texts.forEach((text, index) => {
      if (text === null) return;
      let state = 0;
      for (let i = 0; i < text.length; i += 1) {
        const code = text.charCodeAt(i);
        state = this.move(state, code) ?? this.add(state, code);
      }
      this.best[state] = Math.min(this.best[state], index);
    });
    for (let e = this.edge[0]; e !== -1; e = this.sibling[e])
      if (this.code[e] < 128) this.root[this.code[e]] = this.to[e];
    // Breadth first, so a state's fail target (a shorter string) is finished before the state.
    const queue: number[] = [];
    for (let e = this.edge[0]; e !== -1; e = this.sibling[e]) queue.push(this.to[e]);
    for (let q = 0; q < queue.length; q += 1) {
      const state = queue[q];
      for (let e = this.edge[state]; e !== -1; e = this.sibling[e]) {
        const to = this.to[e];
        this.fail[to] = this.step(this.fail[state], this.code[e]);
        this.best[to] = Math.min(this.best[to], this.best[this.fail[to]]);
        queue.push(to);
      }
    }
  }

  /** Where `state` moves on `code`, or undefined. */
  private move(state: number, code: number): number | undefined {
    for (let e = this.edge[state]; e !== -1; e = this.sibling[e]) if (this.code[e] === code) return this.to[e];
    return undefined;
  }

  /** A new state reached from `state` on `code`. */
  private add(state: number, code: number): number {
    if (this.states === this.edge.length) {
      this.edge = grown(this.edge, -1);
      this.fail = grown(this.fail, 0);
      this.best = grown(this.best, NONE);
    }
    if (this.edges === this.code.length) {
      this.code = grown(this.code, 0);
      this.to = grown(this.to, 0);
      this.sibling = grown(this.sibling, 0);
    }
    const to = this.states++;
    const e = this.edges++;
    this.code[e] = code;
    this.to[e] = to;
    this.sibling[e] = this.edge[state];
    this.edge[state] = e;
    return to;
  }

  private step(state: number, code: number): number {
    for (let s = state; s !== 0; s = this.fail[s]) {
      const to = this.move(s, code);
      if (to !== undefined) return to;
    }
    return this.move(0, code) ?? 0;
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

/** `a` twice as long, the new half filled with `fill`. */
function grown(a: Int32Array, fill: number): Int32Array {
  const next = new Int32Array(a.length * 2).fill(fill);
  next.set(a);
  return next;
}

/** A regex's source, or a wildcard's longest literal part, as one alternative of a set's prefilter. */
function prefilterSource(text: string, isRegex: boolean): string | null {
  // Case-insensitive alternatives with characters outside ASCII (`ſ`, the Kelvin sign, ...) can
  // make V8's joined regex miss what each matches alone (`/ſ|S|S/i` fails on `s` in Node 20):
  // such a pattern, or one that may name such a character by an escape, is tried alone.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range
  if (!/^[\x00-\x7f]*$/.test(text) || /\\[uxpPc0-9]/.test(text)) return null;
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

/** A regex or wildcard pattern with its place in the set's order. */
interface Special {
  index: number;
  text: string;
  /** The prefilter this pattern can match only behind, or -1. */
  filter: number;
  regex?: LinePattern;
  wildcard?: (canonicalLine: string) => boolean;
}

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
  private readonly special: Special[] = [];
  private readonly prefilters: RegExp[];

  constructor(texts: readonly string[]) {
    this.texts = [...new Set(texts)].filter((t) => t.length > 0);
    this.size = this.texts.length;
    const prefilters: string[][] = [];
    let length = PREFILTER_CHARS;
    const plain = this.texts.map((text, index) => {
      const isRegex = text.startsWith('/') && text.endsWith('/') && text.length > 2;
      if (!isRegex && !text.includes('*')) return text;
      const source = prefilterSource(text, isRegex);
      let filter = -1;
      if (source !== null && source.length <= PREFILTER_CHARS) {
        if (length + source.length > PREFILTER_CHARS) {
          prefilters.push([]);
          length = 0;
        }
        prefilters[prefilters.length - 1].push(source);
        length += source.length;
        filter = prefilters.length - 1;
      }
      this.special.push(
        isRegex
          ? { index, text, filter, regex: compilePattern(text) }
          : { index, text, filter, wildcard: wildcardMatcher(text) },
      );
      return null;
    });
    this.plain = new SubstringAutomaton(plain);
    // Each alternative in its own group, so none can reach into the next.
    this.prefilters = prefilters.map((sources) => new RegExp(sources.map((p) => `(?:${p})`).join('|'), 'mi'));
  }

  /** The first pattern (in the order given) that matches the line, or null. */
  match(line: string): string | null {
    const first = this.plain.first(line);
    let tested = -1;
    let passes = true;
    let canonical: string | undefined;
    for (const p of this.special) {
      if (p.index > first) break;
      if (p.filter >= 0) {
        // Filters come in order, so each is tested at most once per line.
        if (p.filter !== tested) {
          tested = p.filter;
          passes = this.prefilters[tested].test(line);
        }
        if (!passes) continue;
      }
      if (p.regex) {
        if (p.regex.test(line)) return p.text;
      } else if (p.wildcard) {
        canonical ??= canonicalCase(line);
        if (p.wildcard(canonical)) return p.text;
      }
    }
    return first < this.texts.length ? this.texts[first] : null;
  }
}
