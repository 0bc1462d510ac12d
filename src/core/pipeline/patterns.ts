import { PatternError } from '../errors/index.js';
import { canonicalUnit, NONE, SubstringAutomaton } from './substring-automaton.js';
import { regexShape } from './regex-shape.js';
import { regexSetMatcher } from './regex-dfa.js';
import type { ByteAutomaton, LineSet } from '../engine/engine.js';

/** One exclusion/inclusion pattern: `/regex/`, a `*` wildcard, or a plain substring. */
export interface LinePattern {
  readonly text: string;
  test(line: string): boolean;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range
const ASCII = /^[\x00-\x7f]*$/;

/** `text` as a case-insensitive regular expression without the `u` flag sees it: `canonicalUnit` of each unit. */
export function canonicalCase(text: string): string {
  if (ASCII.test(text)) return text.toUpperCase();
  return text.replace(/[\s\S]/g, (unit) => String.fromCharCode(canonicalUnit(unit.charCodeAt(0))));
}

const isRegexText = (text: string) => text.startsWith('/') && text.endsWith('/') && text.length > 2;

/** Compiles one pattern with the reference's rules (regex and wildcard are case-insensitive). */
export function compilePattern(text: string): LinePattern {
  if (isRegexText(text)) {
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

/**
 * A regex's source as one alternative of a joined regex, or null when joining could change what
 * it matches.
 */
function joinable(text: string): string | null {
  // Case-insensitive alternatives with characters outside ASCII (`ſ`, the Kelvin sign, ...) can
  // make V8's joined regex miss what each matches alone (`/ſ|S|S/i` fails on `s` in Node 20):
  // such a pattern, or one that may name such a character by an escape, is tried alone.
  if (!ASCII.test(text) || /\\[uxpPc0-9]/.test(text)) return null;
  // Backreferences and named groups change meaning when group numbers shift or names meet.
  return /\(\?<[^=!]/.test(text) ? null : text.slice(1, -1);
}

/**
 * Characters of source per joined regex: V8 compiles a long regular expression in more than
 * linear time and refuses one past a size, so the sources are joined in slices of this length
 * and a longer pattern is tried alone.
 */
const JOINED_CHARS = 4_000;

/** The shortest literal that keys an anchored regex (`||` is in most lines). */
const KEY_ANCHORED = 3;

/** A joined regex, or a pattern tried alone (at the line's start only when `sticky` is set). */
interface Tried {
  index: number;
  pattern: LinePattern;
  sticky: RegExp | null;
}

/**
 * Anchored regexes joined as `(a)|(b)|…` with the sticky flag: tried at 0 only, an alternation
 * takes its first alternative that matches there, which is the first of them that matches the
 * line; the group around each alternative says which one.
 */
interface Joined {
  re: RegExp;
  /** The same alternatives without the groups around them: whether one matches, for `has`. */
  any: RegExp;
  /** Per alternative: the number of its group, and the index of its pattern. */
  groups: number[];
  indices: number[];
}

/**
 * Plain patterns `has` looks for one by one (`includes`, a native search) rather than with the
 * automaton, which reads a line unit by unit in JavaScript: over regex-exclusions' 707,160 lines,
 * 0.09-0.16 s for its two plain patterns against 1.3-1.7 s (in-process, a loaded machine).
 */
const MOST_SEARCHED = 8;

/** Found keys a line may hold before the set tries every keyed pattern instead. */
const MOST_FOUND = 256;

/** A pattern tried on a line: at the start only when anchored. */
function test({ pattern, sticky }: Tried, line: string): boolean {
  if (sticky === null) return pattern.test(line);
  sticky.lastIndex = 0;
  return sticky.test(line);
}

/** The index of the first pattern of a joined regex that matches the line, or NONE. */
function firstJoined({ re, groups, indices }: Joined, line: string): number {
  re.lastIndex = 0;
  if (groups.length === 1) return re.test(line) ? indices[0] : NONE;
  const m = re.exec(line);
  if (m === null) return NONE;
  for (let a = 0; a < groups.length; a += 1) if (m[groups[a]] !== undefined) return indices[a];
  return NONE;
}

/** Lines with one of these are matched pattern by pattern: `^` and `$` (flag `m`) see lines in them. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;
const TERMINATORS = ['\n', '\r', '\u2028', '\u2029'];

/**
 * A compiled set of patterns that names, for a line, the first pattern in the given order that
 * matches it, trying each kind of pattern the way that measured fastest. Plain substrings share
 * one automaton. Wildcards' longest literal parts and the literals a regex must contain
 * (regex-shape.ts) are keys of a second automaton that reads lines in canonical case, and each of
 * those patterns is tried only on the lines that hold one of its keys. Regexes anchored at the
 * line's start are tried there only, joined (at one place an alternation costs little; unanchored,
 * it is tried at every place of every line, slower than its regexes one by one). The other
 * regexes are tried one by one.
 */
export class PatternSet implements LineSet {
  readonly size: number;
  /** The pattern every line matches first (a first pattern of `*` only), or null. */
  readonly everyLine: string | null;
  private readonly texts: string[];
  private readonly plain: SubstringAutomaton;
  /** The plain patterns, when `has` searches for them one by one (MOST_SEARCHED); else null. */
  private readonly searched: string[] | null;
  /** The index of the first plain pattern, and of the first other one (NONE for none). */
  private readonly plainFirst: number;
  private readonly specialFirst: number;
  private readonly keys: SubstringAutomaton;
  /** The patterns tried on the lines holding one of their keys, in order; per key, theirs. */
  private readonly keyed: Tried[] = [];
  private readonly owners: number[][] = [];
  private readonly joined: Joined[] = [];
  /** Per pattern: compilePattern's, for a regex or wildcard (`matchEach`). */
  private readonly special: (LinePattern | undefined)[] = [];
  /** The patterns tried on every line, in order. */
  private readonly alone: Tried[] = [];
  /** The first `*` wildcard, or NONE. */
  private all = NONE;
  /** Whether a regex is tried at the line's start only. */
  private readonly sticky: boolean;
  private readonly found = new Int32Array(MOST_FOUND);
  /**
   * When every pattern is a regex anchored at the line's start whose opening units its tree tells
   * (`RegexShape.opening`): per ASCII code unit, 1 when some pattern may match a line without line
   * terminators that opens with it. A line opening with another ASCII unit matches none, unread.
   */
  readonly openings: Uint8Array | null;
  /**
   * When every pattern is an anchored regex joined with others and none matches a line break
   * (`RegexShape.lineBound`): `has` of a line of ASCII read where it stands in a text of lines
   * (`LineSet.hasAt`), without slicing it out; else null.
   */
  readonly hasAt: ((text: string, at: number) => boolean) | null;
  /** The set's automaton on bytes: made when first asked (`byteAutomaton`); null when it has none. */
  private automaton: ByteAutomaton | null | undefined;

  constructor(texts: readonly string[]) {
    this.texts = [...new Set(texts)].filter((t) => t.length > 0);
    this.size = this.texts.length;
    this.everyLine = this.texts.length > 0 && /^\*+$/.test(this.texts[0]) ? this.texts[0] : null;
    const keys = new Map<string, number>();
    const keyed = (tried: Tried, literals: string[]) => {
      for (const key of literals) {
        if (!keys.has(key)) {
          keys.set(key, keys.size);
          this.owners.push([]);
        }
        this.owners[keys.get(key)!].push(this.keyed.length);
      }
      this.keyed.push(tried);
    };
    const joined: { source: string; sources: string[]; groups: number[]; indices: number[]; next: number }[] = [];
    let sticky = false;
    let openings: Uint8Array | null = new Uint8Array(128);
    let joinedBound = true;
    const plain = this.texts.map((text, index) => {
      const isRegex = isRegexText(text);
      if (!isRegex) openings = null;
      if (!isRegex && !text.includes('*')) return text;
      const tried: Tried = { index, pattern: compilePattern(text), sticky: null };
      this.special[index] = tried.pattern;
      if (!isRegex) {
        const longest = text.split(/\*+/).reduce((a, b) => (b.length > a.length ? b : a));
        if (longest.length > 0) keyed(tried, [canonicalCase(longest)]);
        else this.all = Math.min(this.all, index);
        return null;
      }
      const shape = regexShape(text.slice(1, -1));
      if (shape.opening === null) openings = null;
      else if (openings !== null) for (let c = 0; c < 128; c += 1) openings[c] |= shape.opening[c];
      if (shape.anchored) tried.sticky = new RegExp(text.slice(1, -1), 'miy');
      sticky ||= shape.anchored;
      const shortest = Math.min(...(shape.literals ?? ['']).map((l) => l.length));
      const source = shape.anchored ? joinable(text) : null;
      if (shape.literals !== null && (!shape.anchored || shortest >= KEY_ANCHORED)) {
        keyed(tried, shape.literals);
      } else if (source !== null && source.length <= JOINED_CHARS) {
        joinedBound &&= shape.lineBound;
        let last = joined[joined.length - 1];
        if (last === undefined || last.source.length + source.length > JOINED_CHARS) {
          last = { source: '', sources: [], groups: [], indices: [], next: 1 };
          joined.push(last);
        }
        last.source += `${last.source === '' ? '' : '|'}(${source})`;
        last.sources.push(source);
        last.groups.push(last.next);
        last.indices.push(index);
        last.next += 1 + shape.groups;
      } else {
        this.alone.push(tried);
      }
      return null;
    });
    this.sticky = sticky;
    this.openings = this.texts.length > 0 ? openings : null;
    const plainFirst = plain.findIndex((t) => t !== null);
    const specialFirst = plain.findIndex((t) => t === null);
    this.plainFirst = plainFirst < 0 ? NONE : plainFirst;
    this.specialFirst = specialFirst < 0 ? NONE : specialFirst;
    this.plain = new SubstringAutomaton(plain, false, sticky ? TERMINATORS : []);
    const plainTexts = plain.filter((t) => t !== null);
    this.searched = plainTexts.length <= MOST_SEARCHED ? plainTexts : null;
    this.keys = new SubstringAutomaton([...keys.keys()], true);
    this.joined = joined.map(({ source, sources, groups, indices }) => ({
      re: new RegExp(source, 'miy'),
      any: new RegExp(sources.map((alternative) => `(?:${alternative})`).join('|'), 'miy'),
      groups,
      indices,
    }));
    const every = this.joined.map(({ any }) => any);
    const others = plainFirst >= 0 || this.all !== NONE || this.keyed.length > 0 || this.alone.length > 0;
    const bound = joinedBound && every.length > 0 && !others;
    this.hasAt = bound
      ? (text, at) => {
          for (const any of every) {
            any.lastIndex = at;
            if (any.test(text)) return true;
          }
          return false;
        }
      : null;
  }

  /**
   * When every pattern is a regex regex-dfa.ts reads: their automaton on bytes, complete
   * (`LineSet.byteAutomaton`), made on the first call that asks to make it; else null.
   */
  byteAutomaton(make = true): ByteAutomaton | null {
    if (this.automaton === undefined && make) {
      const { texts } = this;
      const matcher = texts.every(isRegexText) ? regexSetMatcher(texts.map((t) => t.slice(1, -1))) : null;
      this.automaton = matcher === null ? null : matcher.complete();
    }
    return this.automaton ?? null;
  }

  /**
   * Whether some pattern matches the line: `match(line) !== null`, for a compile that names no
   * pattern (no report). Order does not matter then, so the first hit ends the search, and joined
   * regexes are tried without the groups that tell their alternatives apart. `unbroken`: the caller
   * knows the line holds no line terminator (`selectPacked`), so it is not looked for.
   */
  has(line: string, unbroken = false): boolean {
    if (this.all !== NONE) return true;
    if (this.sticky && !unbroken && LINE_TERMINATOR.test(line)) return this.matchEach(line) !== null;
    for (const { any } of this.joined) {
      any.lastIndex = 0;
      if (any.test(line)) return true;
    }
    // A few plain patterns are searched for one by one, more by the automaton (which, with regexes
    // at the line's start, also finds line terminators: the line has none, above).
    const { searched } = this;
    if (searched !== null) {
      for (let p = 0; p < searched.length; p += 1) if (line.includes(searched[p])) return true;
    } else if (this.plain.first(line) !== NONE) return true;
    if (this.keyed.length > 0 && this.firstKeyed(line, NONE) !== NONE) return true;
    for (const tried of this.alone) if (test(tried, line)) return true;
    return false;
  }

  /** The first pattern (in the order given) that matches the line, or null. */
  match(line: string): string | null {
    // The plain automaton finds line terminators too (as -1): it reads the line first when a plain
    // pattern comes first, else a regex looks for them and the automaton reads only the lines no
    // earlier pattern matches.
    const scanned = this.plainFirst < this.specialFirst;
    const first = scanned ? this.plain.first(line) : NONE;
    if (this.sticky && (first < 0 || (!scanned && LINE_TERMINATOR.test(line)))) return this.matchEach(line);
    // The smallest index of a pattern known to match; each kind lowers it with the first of its
    // own patterns that matches, trying only those before it.
    let best = Math.min(this.all, first);
    for (const joined of this.joined) if (joined.indices[0] < best) best = Math.min(best, firstJoined(joined, line));
    if (this.keyed.length > 0 && this.keyed[0].index < best) best = this.firstKeyed(line, best);
    for (const tried of this.alone) {
      if (tried.index >= best) break;
      if (test(tried, line)) best = tried.index;
    }
    if (!scanned && this.plainFirst < best) best = Math.min(best, this.plain.first(line));
    // Not `texts[best] ?? null`: reading past the end deoptimizes `match` on every miss.
    return best < this.texts.length ? this.texts[best] : null;
  }

  /** The first keyed pattern before `best` that matches the line (its keys found first), or `best`. */
  private firstKeyed(line: string, best: number): number {
    const { found, keyed, owners } = this;
    const n = this.keys.collect(line, found);
    if (n === 0) return best;
    // Positions in `keyed` are in pattern order: the smallest that matches is the first. A line
    // holds few keys, so each next one is looked for among them rather than sorted.
    for (let last = -1; ; ) {
      let next = NONE;
      if (n < 0) next = last + 1 < keyed.length ? last + 1 : NONE;
      for (let f = 0; f < n; f += 1) {
        const mine = owners[found[f]];
        for (let j = 0; j < mine.length; j += 1) if (mine[j] > last && mine[j] < next) next = mine[j];
      }
      if (next === NONE || keyed[next].index >= best) return best;
      if (test(keyed[next], line)) return keyed[next].index;
      last = next;
    }
  }

  /** `match` trying each pattern alone, for lines with a line terminator. */
  private matchEach(line: string): string | null {
    for (const [index, text] of this.texts.entries()) {
      const pattern = this.special[index];
      if (pattern === undefined ? line.includes(text) : pattern.test(line)) return text;
    }
    return null;
  }
}
