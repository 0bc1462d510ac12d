// The Public Suffix List of the pinned tldts (the reference's version), as scripts/psl-data.js
// writes it from tldts' trie: walking it directly answers "is this hostname its own public
// suffix" without tldts' per-call option handling, splitting and result objects. tldts builds
// its whole trie from object literals when its module loads, at every start; here a top-level label's
// subtree is parsed from its line the first time a walk reaches it.
import { PSL_EXCEPTIONS, PSL_RULES } from './psl-data.js';
import { StringTable } from '../transforms/string-table.js';

interface Node {
  flags: number;
  label: string;
  /** Children by label; null until `source` is parsed. */
  children: Map<string, Node> | null;
  /** The node's encoded children, `{label:node,…}` (psl-data.ts), until parsed; else ''. */
  source: string;
  /** The children by StringTable's hash of their label, for walks over bytes (made on first use). */
  byHash: Map<number, Node[]> | null;
  /** The `*` child, null when there is none, undefined until looked for. */
  wildcard: Node | null | undefined;
}

const ICANN = 1;

function makeNode(label: string, flags: number, children: Map<string, Node> | null, source: string): Node {
  return { flags, label, children, source, byHash: null, wildcard: undefined };
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
    children.set(label, makeNode(label, text.charCodeAt(colon + 1) - 48, grandchildren, ''));
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
    children.set(label, makeNode(label, line.charCodeAt(tab + 1) - 48, null, line.substring(tab + 2)));
  }
  return makeNode('', lines[0].charCodeAt(0) - 48, children, '');
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

function childrenByHash(node: Node): Map<number, Node[]> {
  if (node.byHash) return node.byHash;
  const byHash = new Map<number, Node[]>();
  for (const made of childrenOf(node).values()) {
    const h = StringTable.hash(made.label);
    const same = byHash.get(h);
    if (same) same.push(made);
    else byHash.set(h, [made]);
  }
  node.byHash = byHash;
  return byHash;
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

/** The child of `node` labelled `b[s, e)`, whose hash is `h`. */
function childAt(node: Node, b: Uint8Array, s: number, e: number, h: number): Node | undefined {
  const candidates = childrenByHash(node).get(h);
  if (candidates === undefined) return undefined;
  for (const candidate of candidates) {
    const label = candidate.label;
    if (label.length !== e - s) continue;
    let same = true;
    for (let i = 0; i < label.length && same; i += 1) same = label.charCodeAt(i) === b[s + i];
    if (same) return candidate;
  }
  return undefined;
}

/**
 * `matchedLabels` for the hostname `b[s, e)`, packed with how far the walk went:
 * `(matched + 1) | depth << 8 | (every label walked ? 1 << 16 : 0)`.
 */
function walkAt(b: Uint8Array, s: number, e: number, root: Node): number {
  let node: Node | undefined = root;
  let matched = node.flags & ICANN ? 0 : -1;
  let end = e;
  let depth = 0;
  while (end > s) {
    let h = StringTable.SEED;
    let i = end - 1;
    for (; i >= s && b[i] !== 46; i -= 1) h = Math.imul(h ^ b[i], 0x01000193); // StringTable.step
    node = childAt(node, b, i + 1, end, h) ?? wildcardChild(node);
    if (node === undefined) break;
    depth += 1;
    if (node.flags & ICANN) matched = depth;
    end = Math.max(i, s);
  }
  return (matched + 1) | (depth << 8) | (end <= s ? 1 << 16 : 0);
}

/**
 * Whether `publicSuffixKind` of the clean hostname `b[s, e)` is an own suffix, by a
 * shorter road: a host of several labels is its own suffix only when the rules walk
 * uses every label and ends on an ICANN node, so most walks stop after a label or two,
 * and the exceptions are looked at only for a host that passed.
 */
export function isOwnPublicSuffixAt(b: Uint8Array, s: number, e: number): boolean {
  if (hasCommonTldTail(b, s, e)) return false;
  const t = load();
  const walk = walkAt(b, s, e, t.rules);
  const matched = (walk & 0xff) - 1;
  const depth = (walk >> 8) & 0xff;
  const everyLabel = (walk & (1 << 16)) !== 0;
  let own: boolean;
  if (matched === -1) {
    own = b.subarray(s, e).indexOf(46) === -1; // a single label
  } else {
    own = everyLabel && matched === depth;
  }
  return own && (walkAt(b, s, e, t.exceptions) & 0xff) === 0;
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

const code3 = (s: string) => (s.charCodeAt(0) << 16) | (s.charCodeAt(1) << 8) | s.charCodeAt(2);
const [COM, ORG, EDU, GOV, NET] = ['com', 'org', 'edu', 'gov', 'net'].map(code3);

/**
 * tldts' fast path on the bytes of a clean hostname `b[s, e)`: true when it ends in
 * `.com`, `.org`, `.edu`, `.gov`, `.net` or `.de` and is longer than three characters,
 * so its public suffix is the TLD and the host is not its own suffix.
 */
export function hasCommonTldTail(b: Uint8Array, s: number, e: number): boolean {
  if (e - s <= 3) return false;
  if (b[e - 3] === 46 && b[e - 2] === 100 && b[e - 1] === 101) return true; // .de
  if (b[e - 4] !== 46) return false;
  const tail = (b[e - 3] << 16) | (b[e - 2] << 8) | b[e - 1];
  return tail === COM || tail === ORG || tail === EDU || tail === GOV || tail === NET;
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
