import { exceptions, rules } from 'tldts/dist/es6/src/data/trie.js';
import { NOT_OWN_SUFFIX, publicSuffixKind } from '../../src/core/rules/public-suffix.js';

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

/**
 * Whether flc's walk finds the clean hostname `host` its own public suffix (known or not), as tldts' comparison asks.
 */
export const isOwnPublicSuffix = (host: string): boolean => publicSuffixKind(host) !== NOT_OWN_SUFFIX;
