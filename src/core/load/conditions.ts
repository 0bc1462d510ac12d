/**
 * `!#if` / `!#else` / `!#endif` resolution with the reference's semantics: no
 * identifier is defined, so only the literal `true` holds; `!`, `&&`, `||` and
 * brackets combine them.
 */

const IF = '!#if';
const ELSE = '!#else';
const ENDIF = '!#endif';

export class ConditionError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
  }
}

/** Evaluates a condition expression; throws on an empty one or unbalanced brackets. */
export function evaluateCondition(raw: string): boolean {
  if (!raw) throw new Error('empty condition');
  const expr = raw.trim();
  let depth = 0;
  for (const c of expr) {
    depth += c === '(' ? 1 : c === ')' ? -1 : 0;
    if (depth < 0) break;
  }
  if (depth !== 0) throw new Error(`incorrect brackets: ${expr}`);
  const open = expr.lastIndexOf('(');
  if (open !== -1) {
    const close = expr.indexOf(')', open);
    const inner = evaluateCondition(expr.substring(open + 1, close));
    return evaluateCondition(expr.substring(0, open) + String(inner) + expr.substring(close + 1));
  }
  const or = expr.indexOf('||');
  if (or !== -1) return evaluateCondition(expr.substring(0, or - 1)) || evaluateCondition(expr.substring(or + 2));
  const and = expr.indexOf('&&');
  if (and !== -1) return evaluateCondition(expr.substring(0, and - 1)) && evaluateCondition(expr.substring(and + 2));
  if (expr.indexOf('!') === 0) return !evaluateCondition(expr.substring(1));
  return expr === 'true';
}

/** A line starting with `!#` (every directive does): its index in the list and its text. */
export interface Directive {
  readonly index: number;
  readonly text: string;
}

/** The lines of `lines` that start with `!#`. */
export function directivesOf(lines: readonly string[]): Directive[] {
  const found: Directive[] = [];
  lines.forEach((text, index) => {
    if (text.startsWith('!#')) found.push({ index, text });
  });
  return found;
}

/**
 * Position in `directives` of the one closing the block that starts at `from`, or -1: a nested
 * `!#if` opens a level that `directive` closes (so in a search for `!#else`, a nested `!#else`
 * closes it, as the reference counts).
 */
function blockEnd(directives: readonly Directive[], directive: string, from: number, to: number): number {
  let depth = 0;
  for (let d = from; d < to; d += 1) {
    const text = directives[d].text;
    if (text.startsWith(IF)) depth += 1;
    else if (text.startsWith(directive)) {
      if (depth === 0) return d;
      depth -= 1;
    }
  }
  return -1;
}

/**
 * Which of a list's `count` lines survive condition resolution (1 kept, 0 dropped), given its
 * directives: the lines of a block whose condition fails, and the `!#if`/`!#else`/`!#endif` lines
 * themselves, are dropped. Only directive lines are read, so the list may be in any form.
 */
export function conditionMask(count: number, directives: readonly Directive[]): Uint8Array {
  const keep = new Uint8Array(count).fill(1);
  const at = (d: number) => directives[d].index;
  const walk = (from: number, to: number): void => {
    for (let d = from; d < to; d += 1) {
      const { index, text } = directives[d];
      if (text.startsWith(IF)) {
        const end = blockEnd(directives, ENDIF, d + 1, to);
        if (end === -1) throw new ConditionError(`condition end not found for '${text}'`, index);
        const elseAt = blockEnd(directives, ELSE, d + 1, end);
        let matched: boolean;
        try {
          matched = evaluateCondition(text.substring(IF.length).trim());
        } catch (e) {
          throw new ConditionError(`invalid condition '${text}': ${(e as Error).message}`, index);
        }
        if (elseAt !== -1 && directives[elseAt].text.trim().length !== ELSE.length) {
          throw new ConditionError(`invalid directive '${directives[elseAt].text}'`, at(elseAt));
        }
        const middle = elseAt === -1 ? end : elseAt;
        // The branch not taken goes, with the directives; without `!#else`, `middle` is `end`.
        if (matched) {
          walk(d + 1, middle);
          keep.fill(0, at(middle), at(end) + 1);
        } else {
          keep.fill(0, index, at(middle) + 1);
          walk(middle + 1, end);
        }
        keep[index] = 0;
        keep[at(end)] = 0;
        d = end;
      } else if (text.startsWith(ELSE) || text.startsWith(ENDIF)) {
        throw new ConditionError(`unexpected '${text}' without !#if`, index);
      }
    }
  };
  walk(0, directives.length);
  return keep;
}
