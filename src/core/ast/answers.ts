import { AnswerTooLargeError } from '../errors/index.js';
import { formatDuration } from './validate-rule.js';
import { walkAst } from './walk.js';
import { parseRules, validateList } from './list.js';

/** The list routes whose answers are built (and bounded) here: `/api/ast/walk`, `/api/ast/parse`, `/api/validate`. */
export type ListOperation = 'walk' | 'parse' | 'validate';

/**
 * The default bound of one such answer, in bytes (`flc serve --ast-answer-limit`, in MiB): the walk of
 * 1 MiB of a real list (the text limit) answers 7 to 29 MiB; 2 MB of rules with 50 `$domain`s each, 51 MiB.
 */
export const DEFAULT_ANSWER_LIMIT_BYTES = 32 * 1024 * 1024;

const WHAT: Record<ListOperation, { what: string; advice: string }> = {
  walk: {
    what: 'The walk of these rules',
    advice: 'walk fewer rules at a time, or ask for fewer nodeTypes or a lower maxDepth',
  },
  parse: { what: 'The parse of these rules', advice: 'parse fewer rules at a time' },
  validate: { what: 'The validation of this list', advice: 'validate fewer lines at a time' },
};

/** The 200 body of one operation, as an object (fields in the order the routes have always sent them). */
function answer(op: ListOperation, request: unknown): Record<string, unknown> {
  const started = performance.now();
  const result = op === 'walk' ? walkAst(request) : op === 'parse' ? parseRules(request) : validateList(request);
  return { success: true, ...result, duration: formatDuration(performance.now() - started) };
}

/**
 * `JSON.stringify(value)` of a plain object whose large fields are arrays, built element by element
 * and given up once it passes `maxBytes` (UTF-8): an amplifying request costs at most the limit in
 * memory, never the whole answer. Undefined fields are left out and undefined elements become
 * `null`, as `JSON.stringify` does, so the text is the same.
 */
export function boundedJson(value: Record<string, unknown>, maxBytes: number): string | null {
  const parts: string[] = [];
  let bytes = 0;
  const add = (s: string): boolean => {
    bytes += Buffer.byteLength(s);
    parts.push(s);
    return bytes <= maxBytes;
  };
  let first = true;
  if (!add('{')) return null;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    if (!add(`${first ? '' : ','}${JSON.stringify(key)}:`)) return null;
    first = false;
    if (Array.isArray(v)) {
      if (!add('[')) return null;
      for (let i = 0; i < v.length; i++) {
        if (!add(`${i === 0 ? '' : ','}${JSON.stringify(v[i]) ?? 'null'}`)) return null;
      }
      if (!add(']')) return null;
    } else if (!add(JSON.stringify(v))) return null;
  }
  if (!add('}')) return null;
  return parts.join('');
}

/**
 * The 200 body of `/api/ast/walk`, `/api/ast/parse` or `/api/validate` as UTF-8 JSON, the same
 * bytes as `JSON.stringify` of the answer; AnswerTooLargeError past `maxBytes`, InputError for a
 * request outside the routes' limits. The server runs it in its worker pool.
 */
export function listAnswerBytes(op: ListOperation, request: unknown, maxBytes: number): Uint8Array {
  const text = boundedJson(answer(op, request), maxBytes);
  if (text === null) {
    throw new AnswerTooLargeError(WHAT[op].what, maxBytes, '--ast-answer-limit', WHAT[op].advice);
  }
  return new TextEncoder().encode(text);
}
