/** No pattern: larger than any index. */
export const NONE = 0x7fffffff;

/** The most states for which an automaton keeps a table of moves (512 KB each 1,024). */
const DENSE_STATES = 4_096;

/**
 * The code unit a case-insensitive JavaScript regular expression without the `u` flag compares
 * (ECMAScript Canonicalize): its upper case when that is one code unit, except that nothing
 * outside ASCII becomes ASCII (so `ſ` is not `s`, nor `ı` `i`).
 */
export function canonicalUnit(code: number): number {
  if (code < 128) return code >= 97 && code <= 122 ? code - 32 : code;
  const upper = String.fromCharCode(code).toUpperCase();
  return upper.length === 1 && upper.charCodeAt(0) >= 128 ? upper.charCodeAt(0) : code;
}

/**
 * Aho–Corasick over UTF-16 code units: one left-to-right scan of a line finds every text in it,
 * however many there are. `first(line)` is the smallest index (into the texts given) of a text
 * the line contains, or NONE; `mark` stamps every text the line contains, read in canonical case
 * when the automaton was built for it (the texts then given in canonical case). A hundred
 * thousand texts make millions of states, so the trie lives in typed arrays (an object per state
 * would not fit), sized once: it has at most one state per code unit of the texts, and as a state
 * has one parent, it also names the edge into it. A state's children are a list: its first child,
 * then each child's next sibling.
 */
export class SubstringAutomaton {
  /** Per state, 0 for none (the root is nobody's child). */
  private child: Int32Array;
  private sibling: Int32Array;
  /** Per state: the code unit on the edge into it. */
  private code: Uint16Array;
  private readonly fail: Int32Array;
  /** Per state: the smallest index among the texts ending there, itself or through `fail`. */
  private best: Int32Array;
  /** Per state: the index of a text ending exactly there, or NONE. */
  private ends: Int32Array;
  /** Per state: the nearest state on its `fail` chain where a text ends, or 0. */
  private readonly output: Int32Array;
  /** The root's moves on ASCII as a table: most code units of a line are read at the root. */
  private readonly root = new Int32Array(128);
  /**
   * Every state's move on ASCII (`fail` followed), 128 a state, when the states are few (a set's
   * keys, a few plain patterns): one read a code unit instead of a walk of children and fails.
   */
  private readonly moves: Int32Array | null = null;

  /** `flags`: texts `first` finds as -1, before any other. */
  constructor(
    given: readonly (string | null)[],
    private readonly canonical = false,
    flags: readonly string[] = [],
  ) {
    const texts = [...given, ...flags];
    const flagged = given.length;
    const size = texts.reduce((n, text) => n + (text?.length ?? 0), 1);
    this.child = new Int32Array(size);
    this.sibling = new Int32Array(size);
    this.code = new Uint16Array(size);
    this.best = new Int32Array(size).fill(NONE);
    this.ends = new Int32Array(size).fill(NONE);
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
      this.best[state] = Math.min(this.best[state], index < flagged ? index : -1);
      this.ends[state] = Math.min(this.ends[state], index < flagged ? index : -1);
    });
    // The texts' length only bounds the states: the arrays keep the part in use.
    this.child = this.child.slice(0, states);
    this.sibling = this.sibling.slice(0, states);
    this.code = this.code.slice(0, states);
    this.best = this.best.slice(0, states);
    this.ends = this.ends.slice(0, states);
    this.fail = new Int32Array(states);
    this.output = new Int32Array(states);
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
        const fail = this.step(this.fail[state], this.code[s]);
        this.fail[s] = fail;
        this.best[s] = Math.min(this.best[s], this.best[fail]);
        this.output[s] = this.ends[fail] !== NONE ? fail : this.output[fail];
        queue[queued++] = s;
      }
    }
    if (states > DENSE_STATES) return;
    // In breadth-first order, a state's fail target's row is written before its own.
    const moves = new Int32Array(states << 7);
    moves.set(this.root);
    for (let q = 0; q < queued; q += 1) {
      const state = queue[q];
      moves.copyWithin(state << 7, this.fail[state] << 7, (this.fail[state] + 1) << 7);
      for (let s = this.child[state]; s !== 0; s = this.sibling[s])
        if (this.code[s] < 128) moves[(state << 7) | this.code[s]] = s;
    }
    // Canonical texts hold no lower-case ASCII: a line's `a` moves as `A`.
    if (canonical)
      for (let state = 0; state < states; state += 1)
        moves.copyWithin((state << 7) | 97, (state << 7) | 65, (state << 7) | 91);
    this.moves = moves;
  }

  private fold(code: number): number {
    return this.canonical ? canonicalUnit(code) : code;
  }

  /** Where `state` moves on `code` (ASCII, canonical when the automaton reads so): the table, or `step`. */
  private next(state: number, code: number): number {
    return this.moves !== null && code < 128 ? this.moves[(state << 7) | code] : this.step(state, code);
  }

  /** Where `state` moves on `code`, or 0. */
  private move(state: number, code: number): number {
    for (let s = this.child[state]; s !== 0; s = this.sibling[s]) if (this.code[s] === code) return s;
    return 0;
  }

  private step(state: number, code: number): number {
    for (let s = state; s !== 0; s = this.fail[s]) {
      const to = this.move(s, code);
      if (to !== 0) return to;
    }
    return code < 128 ? this.root[code] : this.move(0, code);
  }

  /** The smallest index of a text the line contains (-1 for a flag), or NONE. */
  first(line: string): number {
    let state = 0;
    let first = NONE;
    for (let i = 0; i < line.length; i += 1) {
      state = this.next(state, line.charCodeAt(i));
      if (this.best[state] < first) first = this.best[state];
    }
    return first;
  }

  /**
   * The texts the line contains: their indices go to `out` from 0 on (a text found twice is
   * there twice); returns how many, or -1 when they are more than `out` holds.
   */
  collect(line: string, out: Int32Array): number {
    let state = 0;
    let n = 0;
    for (let i = 0; i < line.length; i += 1) {
      const code = line.charCodeAt(i);
      state = code < 128 && this.moves !== null ? this.moves[(state << 7) | code] : this.step(state, this.fold(code));
      if (this.best[state] === NONE) continue;
      for (let s = this.ends[state] !== NONE ? state : this.output[state]; s !== 0; s = this.output[s]) {
        if (n === out.length) return -1;
        out[n++] = this.ends[s];
      }
    }
    return n;
  }
}
