// tldts (pinned to the reference's version) keeps its Public Suffix List trie in this
// module; walking it directly answers "is this hostname its own public suffix" without
// tldts' per-call option handling, splitting and result objects.
import { exceptions, rules } from 'tldts/dist/es6/src/data/trie.js';
import { StringTable } from './string-table.js';

type RawTrie = [number, Record<string, RawTrie>];
/** A trie node, made from tldts' raw node when a walk first reaches it (the whole trie costs tens of ms). */
interface Node {
  flags: number;
  label: string;
  raw: Record<string, RawTrie>;
  /** Children made so far, by label. */
  made: Map<string, Node>;
  /** The children by StringTable's hash of their label, for walks over bytes (made on first use). */
  byHash: Map<number, Node[]> | null;
  /** The `*` child, null when there is none, undefined until looked for. */
  wildcard: Node | null | undefined;
}

const ICANN = 1;

function toNode(label: string, [flags, raw]: RawTrie): Node {
  return { flags, label, raw, made: new Map(), byHash: null, wildcard: undefined };
}

/** The child labelled `label`, or undefined. */
function child(node: Node, label: string): Node | undefined {
  let made = node.made.get(label);
  if (made === undefined && Object.prototype.hasOwnProperty.call(node.raw, label)) {
    made = toNode(label, node.raw[label]);
    node.made.set(label, made);
  }
  return made;
}

function wildcardChild(node: Node): Node | undefined {
  if (node.wildcard === undefined) node.wildcard = child(node, '*') ?? null;
  return node.wildcard ?? undefined;
}

function childrenByHash(node: Node): Map<number, Node[]> {
  if (node.byHash) return node.byHash;
  const byHash = new Map<number, Node[]>();
  for (const label of Object.keys(node.raw)) {
    const made = child(node, label)!;
    const h = StringTable.hash(label);
    const same = byHash.get(h);
    if (same) same.push(made);
    else byHash.set(h, [made]);
  }
  node.byHash = byHash;
  return byHash;
}

let tries: { rules: Node; exceptions: Node } | null = null;
function load() {
  tries ??= { rules: toNode('', rules as RawTrie), exceptions: toNode('', exceptions as RawTrie) };
  return tries;
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
    end = i >= s ? i : s;
  }
  return (matched + 1) | (depth << 8) | (end <= s ? 1 << 16 : 0);
}

/**
 * `isOwnPublicSuffix` of the clean hostname `b[s, e)`, with the same answer by a
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

/**
 * True when tldts (ICANN section, the reference's options) would say `host` is its own
 * public suffix. Only for clean hostnames: lowercase `[a-z0-9-]` labels, no empty label.
 */
export function isOwnPublicSuffix(host: string): boolean {
  const n = host.length;
  // tldts' fast path: these endings make the TLD the suffix, so a longer host is not one.
  if (n > 3) {
    const tail = host.substring(n - 4);
    if (tail === '.com' || tail === '.org' || tail === '.edu' || tail === '.gov' || tail === '.net' || tail.endsWith('.de')) {
      return false;
    }
  }
  const t = load();
  if (matchedLabels(host, t.exceptions) !== -1) return false;
  const labels = labelCount(host);
  const matched = matchedLabels(host, t.rules);
  return matched === -1 ? labels === 1 : matched === labels;
}
