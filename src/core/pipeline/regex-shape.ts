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
}

/** Literal sets of more strings than this are not worth scanning for. */
const MOST_LITERALS = 16;

const parser = new RegExpParser({ ecmaVersion: 2025 });

/** The shape of a regex source (without its slashes) as V8 reads it with the `mi` flags. */
export function regexShape(source: string): RegexShape {
  let pattern: ReturnType<RegExpParser['parsePattern']>;
  try {
    pattern = parser.parsePattern(source, undefined, undefined, { unicode: false });
  } catch {
    // V8 took it (compilePattern compiled it first); what the parser does not read is tried alone.
    return { anchored: false, literals: null, groups: 0 };
  }
  let groups = 0;
  visitRegExpAST(pattern, { onCapturingGroupEnter: () => (groups += 1) });
  return {
    anchored: pattern.alternatives.every(isAnchored),
    literals: alternativesLiterals(pattern.alternatives),
    groups,
  };
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
