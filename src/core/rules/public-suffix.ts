// The Public Suffix List of the pinned tldts (the reference's version), as scripts/psl-data.js
// writes it from tldts' trie: walking it directly answers "is this hostname its own public
// suffix" without tldts' per-call option handling, splitting and result objects. tldts builds
// its whole trie from object literals when its module loads, at every start; here a top-level label's
// subtree is parsed from its line the first time a walk reaches it.
import { PSL_EXCEPTIONS, PSL_RULES } from './psl-data.js';

interface Node {
  flags: number;
  /** Children by label; null until `source` is parsed. */
  children: Map<string, Node> | null;
  /** The node's encoded children, `{label:node,…}` (psl-data.ts), until parsed; else ''. */
  source: string;
  /** The `*` child, null when there is none, undefined until looked for. */
  wildcard: Node | null | undefined;
}

const ICANN = 1;

function makeNode(flags: number, children: Map<string, Node> | null, source: string): Node {
  return { flags, children, source, wildcard: undefined };
}

/**
 * Parses the children encoded at `text[at]` (`{label:node,…}`, each node its `flags` digit and
 * then its own children, if any) with their whole subtrees; an empty map when there is no `{`.
 * Returns them and where their text ends.
 */
function parseChildren(text: string, at: number): [Map<string, Node>, number] {
  const children = new Map<string, Node>();
  if (text.charCodeAt(at) !== 123 /* { */) return [children, at];
  let i = at + 1;
  for (;;) {
    const colon = text.indexOf(':', i);
    const label = text.substring(i, colon);
    const [grandchildren, next] = parseChildren(text, colon + 2);
    children.set(label, makeNode(text.charCodeAt(colon + 1) - 48, grandchildren, ''));
    i = next + 1; // past ',' or '}'
    if (text.charCodeAt(next) === 125 /* } */) return [children, i];
  }
}

/** The root of an encoded trie: its top-level labels, each parsed when first used. */
function parseRoot(text: string): Node {
  const lines = text.split('\n');
  const children = new Map<string, Node>();
  for (let k = 1; k < lines.length; k += 1) {
    const line = lines[k];
    const tab = line.indexOf('\t');
    const label = line.substring(0, tab);
    children.set(label, makeNode(line.charCodeAt(tab + 1) - 48, null, line.substring(tab + 2)));
  }
  return makeNode(lines[0].charCodeAt(0) - 48, children, '');
}

/** The node's children, its subtree parsed from `source` on first use. */
function childrenOf(node: Node): Map<string, Node> {
  if (node.children === null) {
    node.children = parseChildren(node.source, 0)[0];
    node.source = '';
  }
  return node.children;
}

/** The child labelled `label`, or undefined. */
function child(node: Node, label: string): Node | undefined {
  return childrenOf(node).get(label);
}

function wildcardChild(node: Node): Node | undefined {
  if (node.wildcard === undefined) node.wildcard = child(node, '*') ?? null;
  return node.wildcard ?? undefined;
}

let tries: { rules: Node; exceptions: Node } | null = null;
function load() {
  tries ??= { rules: parseRoot(PSL_RULES), exceptions: parseRoot(PSL_EXCEPTIONS) };
  return tries;
}

/** The trie as tldts holds it (`[flags, {label: node}]`), fully parsed: for tests against tldts. */
export function pslTries(): { rules: unknown; exceptions: unknown } {
  const raw = (node: Node): unknown => [
    node.flags,
    Object.fromEntries([...childrenOf(node)].map(([label, c]) => [label, raw(c)])),
  ];
  const t = load();
  return { rules: raw(t.rules), exceptions: raw(t.exceptions) };
}

/**
 * tldts' lookup: walk labels right to left; the deepest node carrying the ICANN flag
 * is the match. Returns how many labels from the right the match covers, or -1.
 */
function matchedLabels(host: string, root: Node): number {
  let node: Node | undefined = root;
  let matched = node.flags & ICANN ? 0 : -1;
  let end = host.length;
  let depth = 0;
  while (end > 0) {
    const dot = host.lastIndexOf('.', end - 1);
    const label = host.substring(dot + 1, end);
    node = child(node, label) ?? wildcardChild(node);
    if (node === undefined) break;
    depth += 1;
    if (node.flags & ICANN) matched = depth;
    end = dot === -1 ? 0 : dot;
  }
  return matched;
}

function labelCount(host: string): number {
  let n = 1;
  for (let i = host.indexOf('.'); i !== -1; i = host.indexOf('.', i + 1)) n += 1;
  return n;
}

/** `publicSuffixKind`'s answers. */
export const NOT_OWN_SUFFIX = 0;
/** The host is its own public suffix, by a rule of the list (tldts: `isIcann`). */
export const OWN_KNOWN_SUFFIX = 1;
/** The host is its own public suffix by default: a single label that no rule names (`localhost`). */
export const OWN_UNKNOWN_SUFFIX = 2;

/**
 * Whether tldts (ICANN section, the reference's options) would say `host` is its own public
 * suffix, and whether a rule of the list made it one. Only for clean hostnames: lowercase
 * `[a-z0-9-]` labels, no empty label.
 */
export function publicSuffixKind(host: string): number {
  const n = host.length;
  // tldts' fast path: these endings make the TLD the suffix, so a longer host is not one.
  if (n > 3) {
    const tail = host.substring(n - 4);
    if (
      tail === '.com' ||
      tail === '.org' ||
      tail === '.edu' ||
      tail === '.gov' ||
      tail === '.net' ||
      tail.endsWith('.de')
    ) {
      return NOT_OWN_SUFFIX;
    }
  }
  const t = load();
  if (matchedLabels(host, t.exceptions) !== -1) return NOT_OWN_SUFFIX;
  const labels = labelCount(host);
  const matched = matchedLabels(host, t.rules);
  if (matched === -1) return labels === 1 ? OWN_UNKNOWN_SUFFIX : NOT_OWN_SUFFIX;
  return matched === labels ? OWN_KNOWN_SUFFIX : NOT_OWN_SUFFIX;
}
