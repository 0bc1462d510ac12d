import { exceptions, rules } from 'tldts/dist/es6/src/data/trie.js';

type Trie = [number, Record<string, Trie>];

/**
 * Every path of tldts' Public Suffix List tries (rules, then exceptions) as a hostname, `*` read
 * as the label `wild`, each before the paths below it: `ac`, `com.ac`, …
 */
export function pslPathNames(): string[] {
  const names: string[] = [];
  const walk = (node: Trie, suffix: string) => {
    for (const [label, child] of Object.entries(node[1])) {
      const name = `${label === '*' ? 'wild' : label}${suffix ? `.${suffix}` : ''}`;
      names.push(name);
      walk(child, name);
    }
  };
  walk(rules as Trie, '');
  walk(exceptions as Trie, '');
  return names;
}
