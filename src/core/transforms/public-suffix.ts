// tldts (pinned to the reference's version) keeps its Public Suffix List trie in this
// module; walking it directly answers "is this hostname its own public suffix" without
// tldts' per-call option handling, splitting and result objects.
import { exceptions, rules } from 'tldts/dist/es6/src/data/trie.js';

type RawTrie = [number, Record<string, RawTrie>];
interface Node {
  flags: number;
  children: Map<string, Node>;
}

const ICANN = 1;

function toNode([flags, children]: RawTrie, seen: Map<RawTrie, Node>): Node {
  const raw = [flags, children] as RawTrie;
  let node = seen.get(raw);
  if (node) return node;
  node = { flags, children: new Map() };
  for (const [label, child] of Object.entries(children)) node.children.set(label, toNode(child, seen));
  return node;
}

let tries: { rules: Node; exceptions: Node } | null = null;
function load() {
  tries ??= { rules: toNode(rules as RawTrie, new Map()), exceptions: toNode(exceptions as RawTrie, new Map()) };
  return tries;
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
    node = node.children.get(label) ?? node.children.get('*');
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
