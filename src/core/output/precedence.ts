/**
 * Which of the rules about one name wins, as AdGuard's DNS filtering decides it: an exception
 * outranks a block, an `$important` block outranks an exception, an `$important` exception
 * outranks everything; among rules of one rank, the kind is the same. DNS servers decide by the
 * most specific name instead, so the formats leave out what a rule of a higher rank overrides
 * for every name it covers: what they write then answers as the list does.
 */
import type { DomainRule } from '../rules/dns-rule.js';

/** 0 block, 1 exception, 2 important block, 3 important exception. */
export function rank(rule: Pick<DomainRule, 'kind' | 'important'>): number {
  return (rule.kind === 'allow' ? 1 : 0) + (rule.important ? 2 : 0);
}

/** Could `rule` override another rule (or be overridden by one of a lower rank)? Blocks of rank 0 only lose. */
export function mayOverride(rule: DomainRule): boolean {
  return rule.modifiers.length === 0 && rank(rule) > 0;
}

/** A name's last two labels (itself when it has fewer). */
function tail(name: string): string {
  const last = name.lastIndexOf('.');
  return last <= 0 ? name : name.slice(name.lastIndexOf('.', last - 1) + 1);
}

interface Ranked {
  rank: number;
  text: string;
}

/**
 * The rules that can override others (exceptions and important blocks without other modifiers),
 * indexed by name. Lists hold few of them, so each rule asks a handful of map lookups.
 */
export class Overrides {
  /** Per kind and name, the highest-ranking such rule for the name and its subdomains, and its text. */
  private readonly covering = { block: new Map<string, Ranked>(), allow: new Map<string, Ranked>() };
  /** The same for rules about the name alone (`|name^`, `@@|name^`). */
  private readonly exact = { block: new Map<string, Ranked>(), allow: new Map<string, Ranked>() };
  /**
   * The last two labels of every name in `covering` (the whole name when it has one label): a
   * name whose own last two labels are not here has no covering rule, and is answered at once.
   */
  private readonly tails = new Set<string>();

  add(rule: DomainRule, text: string): void {
    if (!mayOverride(rule)) return;
    const r = rank(rule);
    const map = (rule.subdomains ? this.covering : this.exact)[rule.kind];
    for (const name of rule.names) {
      if ((map.get(name)?.rank ?? -1) < r) map.set(name, { rank: r, text });
      if (rule.subdomains) this.tails.add(tail(name));
    }
  }

  /**
   * The rule of the other kind and a higher rank that covers `name` (and, for a rule with
   * subdomains, every name under it), or null.
   */
  overriding(rule: DomainRule, name: string): string | null {
    const other = rule.kind === 'allow' ? 'block' : 'allow';
    const map = this.covering[other];
    const r = rank(rule);
    const exact = this.exact[other];
    const alone = rule.subdomains || exact.size === 0 ? undefined : exact.get(name);
    if (alone && alone.rank > r) return alone.text;
    if (map.size === 0) return null;
    const last = tail(name);
    if (!this.tails.has(last) && !this.tails.has(last.slice(last.indexOf('.') + 1))) return null;
    // The name, then each parent: no array, as this runs once per name of a list.
    for (let at = 0; at >= 0; at = name.indexOf('.', at) + 1 || -1) {
      const over = map.get(at === 0 ? name : name.slice(at));
      if (over && over.rank > r) return over.text;
    }
    return null;
  }
}
