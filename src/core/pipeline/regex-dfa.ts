/**
 * A linear-time matcher for a set of `/regex/` patterns on lines of ASCII bytes (`LineSet.byteAutomaton`):
 * whether one of them matches, as V8 would answer with the `mi` flags on the line alone, decided in
 * one pass over the line's bytes with no string made. Each pattern's syntax tree (regexpp, as
 * regex-shape.ts reads it) becomes an automaton: an alternative's main part, and each look-ahead it
 * opens with at the line's start, one deterministic automaton each (subset construction), which
 * the set runs side by side as one automaton built as lines need its states (a lazy product).
 * Each character, set and class is compiled alone by V8 with the `i` flag and tried on the 128
 * ASCII units, so the case folding is V8's own. A pattern with what this does not read (a
 * back-reference, a word boundary, a look-behind, a look-ahead elsewhere, a large repetition) or
 * whose automaton grows too large leaves the whole set to V8 (null).
 */
import { RegExpParser, visitRegExpAST } from '@eslint-community/regexpp';
import type { Alternative, Element } from '@eslint-community/regexpp/ast';
import type { ByteAutomaton } from '../engine/engine.js';
import { DFA } from '../engine/kernel-constants.js';
import { elementAlone } from './regex-shape.js';

const UNITS = 128;
/** A pattern's automata past these sizes are left to V8. */
const MOST_NFA_STATES = 5_000;
const MOST_DFA_STATES = 500;
/** Groups and repetitions nested deeper than this are left to V8 (the build recurses). */
const DEEPEST = 64;
/** Distinct characters, sets and classes a set's patterns may name (each is compiled by V8). */
const MOST_ELEMENTS = 256;
/** The set's states kept at once; past this its table starts afresh (as RE2's lazy DFA does). */
const MOST_STATES = 4_096;
/** Parts (main parts and look-aheads) a set's automaton runs side by side. */
const MOST_PARTS = 64;
/**
 * Work (states made and visited, moves made, elements compiled) allowed to build a set's automata,
 * and again to complete its states; and the time, whichever ends first: a few tens of
 * milliseconds, whatever the patterns (a configuration may be anyone's).
 */
const MOST_WORK = 500_000;
const MOST_MS = 40;
/** One part's states that decide it: it matched a prefix of the line, or no prefix can match. */
const DEAD = 0;
const MATCHED = 1;

class Unreadable extends Error {}

/** What is left of MOST_WORK and MOST_MS while one set's automata are built or completed. */
class Budget {
  private left = MOST_WORK;
  private readonly until = performance.now() + MOST_MS;
  private sinceClock = 0;

  spend(work: number): void {
    this.left -= work;
    this.sinceClock += work;
    if (this.sinceClock >= 4096) {
      this.sinceClock = 0;
      if (performance.now() > this.until) throw new Unreadable('too long');
    }
    if (this.left < 0) throw new Unreadable('too much work');
  }
}

const parser = new RegExpParser({ ecmaVersion: 2025 });

/** A nondeterministic automaton: moves on a set of units, free moves, and moves at the line's ends. */
class Nfa {
  constructor(readonly budget: Budget) {}

  readonly free: number[][] = [];
  readonly moves: { units: Uint8Array; to: number }[][] = [];
  readonly atStart: number[][] = [];
  readonly atEnd: number[][] = [];

  state(): number {
    if (this.free.length >= MOST_NFA_STATES) throw new Unreadable('too many states');
    this.budget.spend(1);
    this.free.push([]);
    this.moves.push([]);
    this.atStart.push([]);
    this.atEnd.push([]);
    return this.free.length - 1;
  }
}

/** The ASCII units an element matches alone, as V8 reads it with the `i` flag. */
function unitsOf(raw: string, cache: Map<string, Uint8Array>, budget: Budget): Uint8Array {
  let units = cache.get(raw);
  if (units !== undefined) return units;
  if (cache.size >= MOST_ELEMENTS) throw new Unreadable('too many elements');
  budget.spend(UNITS);
  const alone = elementAlone(raw);
  if (alone === null) throw new Unreadable(raw);
  units = new Uint8Array(UNITS);
  for (let c = 0; c < UNITS; c += 1) if (alone.test(String.fromCharCode(c))) units[c] = 1;
  cache.set(raw, units);
  return units;
}

/** Thompson's construction of a sequence or a disjunction into `nfa`: its entry and exit states. */
function build(nfa: Nfa, units: Map<string, Uint8Array>) {
  let depth = 0;
  const sequence = (elements: readonly Element[]): [number, number] => {
    const from = nfa.state();
    let at = from;
    for (const e of elements) {
      const [a, b] = element(e);
      nfa.free[at].push(a);
      at = b;
    }
    return [from, at];
  };
  const disjunction = (alternatives: readonly Alternative[]): [number, number] => {
    const [from, to] = [nfa.state(), nfa.state()];
    for (const alternative of alternatives) {
      const [a, b] = sequence(alternative.elements);
      nfa.free[from].push(a);
      nfa.free[b].push(to);
    }
    return [from, to];
  };
  const element = (e: Element): [number, number] => {
    depth += 1;
    try {
      if (depth > DEEPEST) throw new Unreadable('too deep');
      return elementAt(e);
    } finally {
      depth -= 1;
    }
  };
  const elementAt = (e: Element): [number, number] => {
    switch (e.type) {
      case 'Character':
      case 'CharacterSet':
      case 'CharacterClass': {
        const [from, to] = [nfa.state(), nfa.state()];
        nfa.moves[from].push({ units: unitsOf(e.raw, units, nfa.budget), to });
        return [from, to];
      }
      case 'Assertion': {
        if (e.kind !== 'start' && e.kind !== 'end') throw new Unreadable(e.raw);
        const [from, to] = [nfa.state(), nfa.state()];
        (e.kind === 'start' ? nfa.atStart : nfa.atEnd)[from].push(to);
        return [from, to];
      }
      case 'Group':
        if ('modifiers' in e && e.modifiers) throw new Unreadable(e.raw);
        return disjunction(e.alternatives);
      case 'CapturingGroup':
        return disjunction(e.alternatives);
      case 'Quantifier': {
        const { min, max } = e;
        if (min > 100 || (max !== Infinity && max > 100)) throw new Unreadable(e.raw);
        const from = nfa.state();
        let at = from;
        for (let k = 0; k < min; k += 1) {
          const [a, b] = element(e.element);
          nfa.free[at].push(a);
          at = b;
        }
        const to = nfa.state();
        nfa.free[at].push(to);
        if (max === Infinity) {
          const [a, b] = element(e.element);
          nfa.free[at].push(a);
          nfa.free[b].push(at);
        } else {
          for (let k = min; k < max; k += 1) {
            const [a, b] = element(e.element);
            nfa.free[at].push(a);
            nfa.free[b].push(to);
            at = b;
          }
        }
        return [from, to];
      }
      default:
        // Back-references, and the `v` flag's forms (never read: patterns have no flags).
        throw new Unreadable(e.raw);
    }
  };
  return { sequence, disjunction };
}

/**
 * One part of an alternative as a deterministic automaton over the 128 units: state DEAD (no
 * prefix can match), MATCHED (a prefix matched: absorbing), the others undecided; `ended[s]` is 1
 * when a line ending in state s matches (through `$`). `start` is the state before the line's
 * first unit, where `^` holds.
 */
interface Part {
  readonly next: Int32Array;
  readonly ended: Uint8Array;
  readonly start: number;
  /** Per unit, its class: units of a class have the same moves. */
  readonly classes: Uint8Array;
}

/** What building one set's automata shares: each element's units, and the work budget. */
interface Building {
  readonly units: Map<string, Uint8Array>;
  readonly budget: Budget;
}

/**
 * A part of a pattern (a sequence, or a look-ahead's disjunction), searched for from any place
 * when `search` (an unanchored alternative), else at the line's start.
 */
function part(make: (b: ReturnType<typeof build>) => [number, number], search: boolean, building: Building): Part {
  const nfa = new Nfa(building.budget);
  const [entry, accept] = make(build(nfa, building.units));
  if (!search) return determinize(nfa, entry, accept);
  // Any unit before the match: a loop before the entry, which `^` cannot follow past the first unit.
  const loop = nfa.state();
  nfa.free[loop].push(entry);
  nfa.moves[loop].push({ units: new Uint8Array(UNITS).fill(1), to: loop });
  return determinize(nfa, loop, accept);
}

/**
 * The units' classes for a list of unit sets: units every set holds or leaves alike share a class.
 * `of[unit]` is its class, `first[k]` a unit of class k.
 */
function unitClasses(sets: readonly Uint8Array[]): { of: Uint8Array; first: number[] } {
  const of = new Uint8Array(UNITS);
  const first: number[] = [];
  const ids = new Map<string, number>();
  for (let c = 0; c < UNITS; c += 1) {
    let key = '';
    for (const set of sets) key += `${set[c]},`;
    let id = ids.get(key);
    if (id === undefined) {
      id = first.length;
      ids.set(key, id);
      first.push(c);
    }
    of[c] = id;
  }
  return { of, first };
}

function determinize(nfa: Nfa, entry: number, accept: number): Part {
  const closure = (states: Iterable<number>, lineStart: boolean, lineEnd: boolean): number[] => {
    const seen = new Set<number>(states);
    const stack = [...seen];
    while (stack.length > 0) {
      const s = stack.pop()!;
      nfa.budget.spend(1);
      const more = [nfa.free[s], lineStart ? nfa.atStart[s] : [], lineEnd ? nfa.atEnd[s] : []];
      for (const list of more) {
        for (const t of list) {
          if (!seen.has(t)) {
            seen.add(t);
            stack.push(t);
          }
        }
      }
    }
    return [...seen].sort((x, y) => x - y);
  };
  // The states' moves are made per class of units the automaton tells apart, then per unit.
  const classes = unitClasses([...new Set(nfa.moves.flatMap((list) => list.map((m) => m.units)))]);
  const sets: number[][] = [[], []];
  const ids = new Map<string, number>();
  const ended = [0, 1];
  const intern = (states: number[], lineStart: boolean): number => {
    if (states.length === 0) return DEAD;
    if (states.includes(accept)) return MATCHED;
    // The first state is where `^` holds: kept apart from a later state of the same set.
    const key = `${lineStart ? '^' : ''}${states.join(',')}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = sets.length;
      if (id >= MOST_DFA_STATES) throw new Unreadable('too many states');
      ids.set(key, id);
      sets.push(states);
      ended.push(closure(states, lineStart, true).includes(accept) ? 1 : 0);
    }
    return id;
  };
  const start = intern(closure([entry], true, false), true);
  const byClass: number[] = [];
  for (let s = 2; s < sets.length; s += 1) {
    // With `^` holding in state s (the line's start), its closure already passed every `^`.
    for (const c of classes.first) {
      const to = new Set<number>();
      nfa.budget.spend(sets[s].length);
      for (const q of sets[s]) for (const m of nfa.moves[q]) if (m.units[c] === 1) to.add(m.to);
      byClass.push(intern(closure(to, false, false), false));
    }
  }
  const k = classes.first.length;
  const next = new Int32Array(sets.length * UNITS);
  next.fill(MATCHED, UNITS, 2 * UNITS);
  for (let s = 2; s < sets.length; s += 1) {
    for (let c = 0; c < UNITS; c += 1) next[s * UNITS + c] = byClass[(s - 2) * k + classes.of[c]];
  }
  return { next, ended: Uint8Array.from(ended), start, classes: classes.of };
}

/** An alternative: the parts that must match (its main part, `(?=…)`) and that must not (`(?!…)`). */
interface Alt {
  readonly must: number[];
  readonly mustNot: number[];
}

/**
 * The alternatives of a pattern as parts, appending them to `parts`. A look-ahead is read only
 * among the zero-width elements an alternative opens with, beside a `^`: it is then asked at the
 * line's start.
 */
function alternatives(source: string, parts: Part[], building: Building): Alt[] {
  let pattern: ReturnType<RegExpParser['parsePattern']>;
  try {
    pattern = parser.parsePattern(source, undefined, undefined, { unicode: false });
  } catch {
    throw new Unreadable(source);
  }
  // V8 folds the case of a character past ASCII by where it stands (ſ, K, Å and Ω fold to or
  // beside ASCII units, and alternatives of characters become a class): compiled alone it may
  // read otherwise, so a pattern that names one is left to V8.
  visitRegExpAST(pattern, {
    onCharacterEnter(c) {
      if (c.value >= 0x80) throw new Unreadable(c.raw);
    },
  });
  // Each alternative is one part at least: none is built past the limit.
  if (parts.length + pattern.alternatives.length > MOST_PARTS) throw new Unreadable('too many parts');
  return pattern.alternatives.map((alternative) => {
    const { elements } = alternative;
    let lead = 0;
    while (lead < elements.length && elements[lead].type === 'Assertion') {
      const kind = (elements[lead] as { kind: string }).kind;
      if (kind !== 'start' && kind !== 'lookahead') break;
      lead += 1;
    }
    const opening = elements.slice(0, lead);
    const anchored = opening.some((e) => e.type === 'Assertion' && e.kind === 'start');
    const alt: Alt = { must: [], mustNot: [] };
    for (const e of opening) {
      if (e.type !== 'Assertion' || e.kind !== 'lookahead') continue;
      if (!anchored) throw new Unreadable(e.raw);
      const ahead = part((b) => b.disjunction(e.alternatives), false, building);
      (e.negate ? alt.mustNot : alt.must).push(parts.push(ahead) - 1);
    }
    // A look-ahead past the opening stays in the main part, which does not read it.
    const main = [
      ...opening.filter((e) => !(e.type === 'Assertion' && e.kind === 'lookahead')),
      ...elements.slice(lead),
    ];
    alt.must.unshift(parts.push(part((b) => b.sequence(main), !anchored, building)) - 1);
    return alt;
  });
}

/** A set's matcher (`regexSetMatcher`). */
export interface RegexSetMatcher {
  /** Whether the line `bytes[s, e)` matches, every byte of which is below 0x80 and none a CR or LF. */
  test(bytes: Uint8Array, s: number, e: number): boolean;
  /**
   * Every state the automaton can reach, as the kernel reads it (`ByteAutomaton`); null when they
   * are more than MOST_STATES, or the line's start decides every line.
   */
  complete(): ByteAutomaton | null;
}

/** The matcher of a set of regex sources (without their slashes), or null when one is not read (see above). */
export function regexSetMatcher(sources: readonly string[]): RegexSetMatcher | null {
  const parts: Part[] = [];
  const alts: Alt[] = [];
  const building = { units: new Map<string, Uint8Array>(), budget: new Budget() };
  try {
    for (const source of sources) {
      alts.push(...alternatives(source, parts, building));
      if (parts.length > MOST_PARTS) return null;
    }
  } catch (error) {
    // A pattern nested past the stack (the parser's and the visitor's recursion) is not read either.
    if (error instanceof Unreadable || error instanceof RangeError) return null;
    throw error;
  }
  return lazyProduct(parts, alts);
}

/** In the set's table: a move not made yet, and the moves into states that decide the line. */
const UNKNOWN = -1;
const { DFA_MATCHES: MATCHES, DFA_NO_MATCH: NO_MATCH, DFA_OTHER_UNIT: OTHER_UNIT, DFA_ROW: ROW } = DFA;

/**
 * The parts run side by side: a state is a part's state each, made when a line first reaches it;
 * a state that decides the line (some alternative sure to match whatever follows, or none able
 * to) is no state but MATCHES or NO_MATCH in the table, so a line's pass reads one table entry
 * per byte.
 */
function lazyProduct(parts: Part[], alts: Alt[]): RegexSetMatcher {
  const n = parts.length;
  /** How many times the table started afresh. */
  let resets = 0;
  let tuples: Int32Array[] = [];
  let ids = new Map<string, number>();
  let next = new Int32Array(64 * UNITS).fill(UNKNOWN);
  /** Per state, 1 when a line ending there matches. */
  let ended = new Uint8Array(64);
  const matched = (p: number, tuple: Int32Array, atEnd: boolean) =>
    tuple[p] === MATCHED || (atEnd && parts[p].ended[tuple[p]] === 1);
  // Where the line ends: some alternative's parts all match, and none it must not.
  const answer = (tuple: Int32Array): boolean =>
    alts.some(
      (alt) => alt.must.every((p) => matched(p, tuple, true)) && !alt.mustNot.some((p) => matched(p, tuple, true)),
    );
  const sure = (tuple: Int32Array) => (alt: Alt) =>
    alt.must.every((p) => tuple[p] === MATCHED) && alt.mustNot.every((p) => tuple[p] === DEAD);
  const lost = (tuple: Int32Array) => (alt: Alt) =>
    alt.must.some((p) => tuple[p] === DEAD) || alt.mustNot.some((p) => tuple[p] === MATCHED);
  const intern = (tuple: Int32Array): number => {
    if (alts.some(sure(tuple))) return MATCHES;
    if (alts.every(lost(tuple))) return NO_MATCH;
    const key = tuple.join(',');
    let id = ids.get(key);
    if (id !== undefined) return id;
    id = tuples.length;
    if (id >= ended.length) {
      const grown = new Int32Array(next.length * 2).fill(UNKNOWN);
      grown.set(next);
      next = grown;
      const more = new Uint8Array(ended.length * 2);
      more.set(ended);
      ended = more;
    }
    ids.set(key, id);
    tuples.push(tuple);
    ended[id] = answer(tuple) ? 1 : 0;
    return id;
  };
  const first = Int32Array.from(parts, (p) => p.start);
  let start = intern(first);
  const step = (state: number, unit: number): number => {
    const from = tuples[state];
    const tuple = new Int32Array(n);
    for (let p = 0; p < n; p += 1) tuple[p] = parts[p].next[from[p] * UNITS + unit];
    if (tuples.length >= MOST_STATES) {
      // Start afresh, keeping the line's start and the state reached.
      resets += 1;
      tuples = [];
      ids = new Map();
      next.fill(UNKNOWN);
      start = intern(first);
      return intern(tuple);
    }
    const to = intern(tuple);
    next[state * UNITS + unit] = to;
    return to;
  };
  const test = (bytes: Uint8Array, s: number, e: number): boolean => {
    let state = start;
    if (state < 0) return state === MATCHES;
    for (let j = s; ; j += 1) {
      // The known moves in a tight loop; a move into a deciding state or not made yet ends it.
      const table = next;
      let to = 0;
      for (; j < e; j += 1) {
        to = table[(state << 7) | bytes[j]];
        if (to < 0) break;
        state = to;
      }
      if (j === e) return ended[state] === 1;
      if (to === UNKNOWN) to = step(state, bytes[j]);
      if (to < 0) return to === MATCHES;
      state = to;
    }
  };
  /** Every state made, or null past the work allowed or when the table had to start afresh. */
  const made = (): ByteAutomaton | null => {
    const before = resets;
    const budget = new Budget();
    // Units every part moves alike move the set alike: one of each class is stepped.
    const classes = unitClasses(parts.map((p) => p.classes));
    for (let state = 0; state < tuples.length && start >= 0; state += 1) {
      for (const unit of classes.first) {
        try {
          budget.spend(n + UNITS);
        } catch {
          return null;
        }
        const at = state * UNITS + unit;
        const to = next[at] === UNKNOWN ? step(state, unit) : next[at];
        if (resets !== before) return null;
        for (let c = 0; c < UNITS; c += 1) if (classes.of[c] === classes.of[unit]) next[state * UNITS + c] = to;
      }
    }
    if (start < 0) return null;
    const table = new Int32Array(tuples.length * ROW).fill(OTHER_UNIT);
    for (let state = 0; state < tuples.length; state += 1) {
      table.set(next.subarray(state * UNITS, (state + 1) * UNITS), state * ROW);
    }
    return { table, ended: ended.slice(0, tuples.length), start };
  };
  let completed: ByteAutomaton | null | undefined;
  const complete = (): ByteAutomaton | null => {
    if (completed === undefined) completed = made();
    return completed;
  };
  return { test, complete };
}
