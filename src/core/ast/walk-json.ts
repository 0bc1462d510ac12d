import { parseRule } from './parse-rule.js';
import { visitTree, walkSink, type WalkOptions } from './walk-tree.js';

/**
 * The walk of lines `[from, to)` of a list as JSON text, without ever holding more than
 * those lines' trees: so a long list can be walked in parts, in any order or on several
 * threads, and `walkJsonText` joins the parts into exactly `JSON.stringify(walkTree(…))`.
 * T is string here; a thread that hands its part over may encode both texts as UTF-8 bytes.
 * (Serialising is most of a walk's time: every node carries its subtree. A memoising serialiser
 * reusing subtree text was slower than native `JSON.stringify` per part.)
 */
export interface WalkJsonPart<T extends { length: number } = string> {
  /** The rules' JSON, comma-separated: their share of the root's `children`. Empty when the root is not reported. */
  rules: T;
  /** The part's records (every reported node under the root), comma-separated, in pre-order. */
  records: T;
  /** Count per type, in the order the types are first met. */
  summary: [string, number][];
}

export function walkJsonPart(lines: readonly string[], from: number, to: number, options: WalkOptions): WalkJsonPart {
  const sink = walkSink(options);
  const rules = [];
  for (let i = from; i < to; i += 1) {
    const rule = parseRule(lines[i]);
    rules.push(rule);
    // Exactly as the root's visit reaches its children.
    if (sink.maxDepth >= 1) visitTree(rule as never, 1, 'children', i, sink);
  }
  return {
    rules: sink.wanted === null || sink.wanted.has('FilterList') ? JSON.stringify(rules).slice(1, -1) : '',
    records: JSON.stringify(sink.nodes).slice(1, -1),
    summary: Object.entries(sink.summary),
  };
}

/** The JSON text of the walk of a whole list, from its parts in line order. */
export function* walkJsonText<T extends { length: number }>(
  parts: readonly WalkJsonPart<T>[],
  options: WalkOptions,
): Generator<string | T> {
  // The root without its children: its record, if the filters keep it.
  const sink = walkSink(options);
  visitTree({ type: 'FilterList', children: [] }, 0, null, null, sink);
  const summary = sink.summary;
  let total = sink.nodes.length;
  yield '{"nodes":[';
  let first = total === 0;
  if (!first) {
    // `…"children":[]}}` without its `]}}`: the rules go between.
    yield JSON.stringify(sink.nodes[0]).slice(0, -']}}'.length);
    let firstRule = true;
    for (const part of parts) {
      if (part.rules.length === 0) continue;
      if (!firstRule) yield ',';
      yield part.rules;
      firstRule = false;
    }
    yield ']}}';
  }
  for (const part of parts) {
    if (part.records.length > 0) {
      if (!first) yield ',';
      yield part.records;
      first = false;
    }
    for (const [type, count] of part.summary) {
      summary[type] = (summary[type] ?? 0) + count;
      total += count;
    }
  }
  yield `],"summary":${JSON.stringify({ ...summary, total })}}`;
}
