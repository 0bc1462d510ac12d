/**
 * What a `/regex/` exclusion or inclusion pattern lets a pattern set skip, read from its syntax
 * tree (@eslint-community/regexpp, the parser ESLint's regex rules use): whether every match
 * starts at the line's start, and literals one of which every match contains.
 */
import { RegExpParser, visitRegExpAST } from '@eslint-community/regexpp';
import type { Alternative, Element, Node } from '@eslint-community/regexpp/ast';

export interface RegexShape {
  /**
   * Every match starts at 0 in a line without line terminators: each alternative has a `^` of its
   * own (not quantified, not in a lookaround), so with the `m` flag a match can only start at the
   * line's start. Such a regex is tried there alone (the sticky flag).
   */
  anchored: boolean;
  /**
   * ASCII literals in canonical case (upper) one of which every match contains, read as the `i`
   * flag reads them; null when the tree names none.
   */
  literals: string[] | null;
  /** Its capturing groups. */
  groups: number;
  /**
   * For an anchored regex: the ASCII code units (both cases of a letter, as the `i` flag reads
   * them) a line must open with for the regex to match it, when it holds no line terminator and
   * opens with ASCII; null when the tree does not tell (a match could open with anything).
   */
  opening: Uint8Array | null;
  /**
   * Anchored, and no part of it matches a CR or an LF, so that in a text of several lines a match
   * at a line's start stays in that line, and sees the line break before it as it would the
   * line's start (`PatternSet.hasAt`); false when not anchored or the tree does not tell.
   */
  lineBound: boolean;
}

/** Literal sets of more strings than this are not worth scanning for. */
const MOST_LITERALS = 16;

const parser = new RegExpParser({ ecmaVersion: 2025 });

/** The shape of a regex source (without its slashes) as V8 reads it with the `mi` flags. */
export function regexShape(source: string): RegexShape {
  const unknown = { anchored: false, literals: null, groups: 0, opening: null, lineBound: false };
  let pattern: ReturnType<RegExpParser['parsePattern']>;
  try {
    pattern = parser.parsePattern(source, undefined, undefined, { unicode: false });
  } catch {
    // V8 took it (compilePattern compiled it first); what the parser does not read is tried alone.
    return unknown;
  }
  try {
    return shapeOf(pattern);
  } catch (error) {
    // A tree nested past the stack of the walks below (V8 takes deeper ones) is tried alone too.
    if (error instanceof RangeError) return unknown;
    throw error;
  }
}

function shapeOf(pattern: ReturnType<RegExpParser['parsePattern']>): RegexShape {
  let groups = 0;
  visitRegExpAST(pattern, { onCapturingGroupEnter: () => (groups += 1) });
  const anchored = pattern.alternatives.every(isAnchored);
  const opening = anchored ? alternativesOpening(pattern.alternatives) : null;
  return {
    anchored,
    literals: alternativesLiterals(pattern.alternatives),
    groups,
    opening: opening === null || opening.empty ? null : opening.units,
    // Only an anchored regex is joined, where `hasAt` asks it.
    lineBound: anchored && pattern.alternatives.every(alternativeLineBound),
  };
}

/**
 * A character, set or class compiled alone, as V8 reads it with the `i` flag (which a whole
 * line of it then matches); null for one V8 reads only in its place.
 */
export function elementAlone(raw: string): RegExp | null {
  try {
    return new RegExp(`^(?:${raw})$`, 'i');
  } catch {
    return null;
  }
}

/**
 * Whether no element of a sequence (in groups and lookarounds too) matches a CR or an LF: a
 * character by its code (no character folds to either under the `i` flag); each set or class
 * compiled alone, as V8 reads it with the `i` flag, and tried on both.
 */
function alternativeLineBound(alternative: Alternative): boolean {
  return alternative.elements.every(function bound(e: Element): boolean {
    switch (e.type) {
      case 'Character':
        return e.value !== 10 && e.value !== 13;
      case 'CharacterSet':
      case 'CharacterClass':
      case 'ExpressionCharacterClass': {
        // An element V8 reads only in its place: what it matches is not told.
        const alone = elementAlone(e.raw);
        return alone !== null && !alone.test('\n') && !alone.test('\r');
      }
      case 'Group':
      case 'CapturingGroup':
        return e.alternatives.every(alternativeLineBound);
      case 'Assertion':
        return e.kind !== 'lookahead' && e.kind !== 'lookbehind' ? true : e.alternatives.every(alternativeLineBound);
      case 'Quantifier':
        return bound(e.element);
      case 'Backreference':
        // It matches what its group matched, which is bound when the group is.
        return true;
      default:
        return false;
    }
  });
}

/**
 * The ASCII units a match of a sequence may open with (`units`), and whether it may match the
 * empty string (`empty`: then what follows it opens the match too); null when anything may
 * open it. Assertions take no unit and are passed over (what they ask only narrows the match).
 */
interface Opening {
  units: Uint8Array;
  empty: boolean;
}

const ASCII_WORD = /\w/;

/** `code` and, for a letter, its other case (the `i` flag: ASCII letters match only ASCII letters). */
function withCase(units: Uint8Array, code: number): void {
  units[code] = 1;
  if (code >= 65 && code <= 90) units[code + 32] = 1;
  if (code >= 97 && code <= 122) units[code - 32] = 1;
}

function alternativesOpening(alternatives: Alternative[]): Opening | null {
  const units = new Uint8Array(128);
  let empty = false;
  for (const alternative of alternatives) {
    const o = sequenceOpening(alternative.elements);
    if (o === null) return null;
    for (let c = 0; c < 128; c += 1) units[c] |= o.units[c];
    empty ||= o.empty;
  }
  return { units, empty };
}

function sequenceOpening(elements: Element[]): Opening | null {
  const units = new Uint8Array(128);
  for (const e of elements) {
    const o = elementOpening(e);
    if (o === null) return null;
    for (let c = 0; c < 128; c += 1) units[c] |= o.units[c];
    if (!o.empty) return { units, empty: false };
  }
  return { units, empty: true };
}

/** The units of a class's element or a class escape (`\d`, `\w`, `\s`); null when not told. */
function classUnits(e: Node, units: Uint8Array): boolean {
  if (e.type === 'Character') {
    const code = literalCode(e);
    if (code === null) return false;
    withCase(units, code);
    return true;
  }
  if (e.type === 'CharacterClassRange') {
    const [min, max] = [literalCode(e.min), literalCode(e.max)];
    // literalCode gives letters upper case: a range is read from its raw ends instead.
    if (min === null || max === null) return false;
    for (let c = e.min.value; c <= e.max.value; c += 1) withCase(units, c);
    return true;
  }
  if (e.type === 'CharacterSet' && (e.kind === 'digit' || e.kind === 'word' || e.kind === 'space') && !e.negate) {
    for (let c = 0; c < 128; c += 1) {
      const ch = String.fromCharCode(c);
      const hit = e.kind === 'digit' ? c >= 48 && c <= 57 : e.kind === 'word' ? ASCII_WORD.test(ch) : /\s/.test(ch);
      if (hit) units[c] = 1;
    }
    return true;
  }
  return false;
}

function elementOpening(e: Node): Opening | null {
  switch (e.type) {
    case 'Assertion':
      return { units: new Uint8Array(128), empty: true };
    case 'Group':
    case 'CapturingGroup':
      return alternativesOpening(e.alternatives);
    case 'Quantifier': {
      const o = elementOpening(e.element);
      return o === null ? null : { units: o.units, empty: o.empty || e.min === 0 };
    }
    case 'Character':
    case 'CharacterSet': {
      const units = new Uint8Array(128);
      return classUnits(e, units) ? { units, empty: false } : null;
    }
    case 'CharacterClass': {
      if (e.unicodeSets) return null;
      const units = new Uint8Array(128);
      for (const member of e.elements) if (!classUnits(member, units)) return null;
      // Negated: every other ASCII unit (a letter's other case is excluded with it, as `i` reads it).
      if (e.negate) for (let c = 0; c < 128; c += 1) units[c] ^= 1;
      return { units, empty: false };
    }
    default:
      return null;
  }
}

function isAnchored(alternative: Alternative): boolean {
  return alternative.elements.some(
    (e) =>
      (e.type === 'Assertion' && e.kind === 'start') ||
      ((e.type === 'Group' || e.type === 'CapturingGroup') && e.alternatives.every(isAnchored)),
  );
}

/**
 * A character read as itself: a plain ASCII character or an escaped punctuation mark. Other
 * escapes (`\k`, `\0`, `\c`, octal) mean different things in different places: none is a literal.
 */
function literalCode(e: Element): number | null {
  if (e.type !== 'Character' || e.value >= 128) return null;
  if (e.raw.length === 1 || (e.raw.length === 2 && e.raw[0] === '\\' && /[^\w\s]/.test(e.raw[1]))) {
    return e.value >= 97 && e.value <= 122 ? e.value - 32 : e.value;
  }
  return null;
}

/** The union of each alternative's literals, when every alternative has some. */
function alternativesLiterals(alternatives: Alternative[]): string[] | null {
  const all: string[] = [];
  for (const alternative of alternatives) {
    const literals = sequenceLiterals(alternative);
    if (literals === null) return null;
    all.push(...literals);
  }
  return all.length > 0 && all.length <= MOST_LITERALS ? [...new Set(all)] : null;
}

/**
 * The best literal set of a sequence: a run of literal characters, or the set of a group (or a
 * repeated element) it must match, whichever has the longest shortest literal.
 */
function sequenceLiterals(alternative: Alternative): string[] | null {
  let best: string[] | null = null;
  const consider = (set: string[] | null) => {
    const shortest = (s: string[]) => Math.min(...s.map((l) => l.length));
    if (set !== null && set.length > 0 && (best === null || shortest(set) > shortest(best))) best = set;
  };
  let run = '';
  for (const e of alternative.elements) {
    const code = literalCode(e);
    if (code !== null) {
      run += String.fromCharCode(code);
      continue;
    }
    consider(run === '' ? null : [run]);
    run = '';
    consider(elementLiterals(e));
  }
  consider(run === '' ? null : [run]);
  return best;
}

function elementLiterals(e: Node): string[] | null {
  if (e.type === 'Group' || e.type === 'CapturingGroup') return alternativesLiterals(e.alternatives);
  if (e.type === 'Quantifier' && e.min >= 1) {
    const code = literalCode(e.element);
    return code !== null ? [String.fromCharCode(code)] : elementLiterals(e.element);
  }
  return null;
}
