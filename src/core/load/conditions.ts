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

function bracketsBalanced(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** Evaluates a condition expression; throws on an empty one or unbalanced brackets. */
export function evaluateCondition(raw: string): boolean {
  if (!raw) throw new Error('empty condition');
  const expr = raw.trim();
  if (!bracketsBalanced(expr)) throw new Error(`incorrect brackets: ${expr}`);
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

/** Index of the directive closing the block that starts at `from`, or -1. */
function blockEnd(lines: string[], directive: string, from: number, to: number): number {
  let depth = 0;
  for (let i = from; i < to; i += 1) {
    if (lines[i].startsWith(IF)) depth += 1;
    else if (lines[i].startsWith(directive)) {
      if (depth === 0) return i;
      depth -= 1;
    }
  }
  return -1;
}

/** The indexes of the lines that survive condition resolution, in order. */
export function resolveConditions(lines: string[]): number[] {
  const kept: number[] = [];
  const walk = (from: number, to: number): void => {
    for (let i = from; i < to; i += 1) {
      const line = lines[i];
      if (line.startsWith(IF)) {
        const end = blockEnd(lines, ENDIF, i + 1, to);
        if (end === -1) throw new ConditionError(`condition end not found for '${line}'`, i);
        const elseAt = blockEnd(lines, ELSE, i + 1, end);
        let matched: boolean;
        try {
          matched = evaluateCondition(line.substring(IF.length).trim());
        } catch (e) {
          throw new ConditionError(`invalid condition '${line}': ${(e as Error).message}`, i);
        }
        if (elseAt === -1) {
          if (matched) walk(i + 1, end);
        } else {
          if (lines[elseAt].trim().length !== ELSE.length) {
            throw new ConditionError(`invalid directive '${lines[elseAt]}'`, elseAt);
          }
          if (matched) walk(i + 1, elseAt);
          else walk(elseAt + 1, end);
        }
        i = end;
      } else if (line.startsWith(ELSE)) {
        throw new ConditionError(`unexpected '${line}' without !#if`, i);
      } else if (line.startsWith(ENDIF)) {
        throw new ConditionError(`unexpected '${line}' without !#if`, i);
      } else {
        kept.push(i);
      }
    }
  };
  walk(0, lines.length);
  return kept;
}
