/**
 * The allowlist (`allow`, `allow_sources`): domains a list must never block. An entry removes
 * every rule that blocks the domain or one of its subdomains, whatever its syntax (a hosts line,
 * a bare domain, `||name^` with any modifiers, a URL rule on the host), the name compared label
 * by label and in punycode. Exceptions (`@@`) are never touched, nor rules that only mention the
 * domain (cosmetic rules, `$domain=`). An flc extension: the reference has no such keys.
 */
import { dnsName, dnsRule, nameAndParents } from '../rules/dns-rule.js';
import { containsNonAscii, isEtcHostsRule } from '../rules/rule-text.js';
import { PatternSet } from './patterns.js';

/** What the allowlist does to one line. */
export interface AllowVerdict {
  /** The line's names the allowlist covers, each with the entry that covers it. */
  hits: { name: string; entry: string }[];
  /** The line without those names (a hosts line naming others too), or null: the line goes. */
  rest: string | null;
}

/** An allowlist entry's domain, or null when it is none. */
export function allowEntry(text: string): string | null {
  return dnsName(text.trim());
}

/**
 * The domains a line of an `allow_sources` file names: a bare domain, a hosts line, `||name^` or
 * `@@||name^`. Empty when it names none.
 */
export function allowFileNames(line: string): string[] {
  const rule = dnsRule(line);
  if (rule === null || (rule.kind === 'other' && rule.code !== 'format-rewrite')) return [];
  return rule.names;
}

export class Allowlist {
  private readonly entries: Set<string>;
  /** Finds an entry in a line's text: a line without one (or non-ASCII, maybe an IDN) is kept unread. */
  private readonly prefilter: PatternSet;

  constructor(entries: Iterable<string>) {
    this.entries = new Set(entries);
    this.prefilter = new PatternSet([...this.entries]);
  }

  /** False when `line` certainly names no allowlisted domain (a cheap test before `check`). */
  mayCover(line: string): boolean {
    return containsNonAscii(line) || this.prefilter.match(line.toLowerCase()) !== null;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry that covers `name` (itself or a parent), or null. */
  entryFor(name: string): string | null {
    for (const at of nameAndParents(name)) if (this.entries.has(at)) return at;
    return null;
  }

  /** What the allowlist does to `line`: null when it keeps it as it is. */
  check(line: string): AllowVerdict | null {
    const rule = dnsRule(line);
    if (rule === null || rule.kind === 'allow' || (rule.kind === 'other' && rule.allow)) return null;
    const hits: AllowVerdict['hits'] = [];
    for (const name of rule.names) {
      const entry = this.entryFor(name);
      if (entry !== null) hits.push({ name, entry });
    }
    if (hits.length === 0) return null;
    return { hits, rest: isEtcHostsRule(line.trim()) ? hostsLineWithout(line, this) : null };
  }
}

/** A hosts line without the names `allow` covers (its comment dropped); null when none is left. */
function hostsLineWithout(line: string, allow: Allowlist): string | null {
  const [address, ...names] = line.replace(/#.*$/, '').trim().split(/\s+/);
  const rest = names.filter((n) => {
    const name = dnsName(n);
    return name === null || allow.entryFor(name) === null;
  });
  return rest.length === 0 ? null : `${address} ${rest.join(' ')}`;
}
