/**
 * `flc explain`: why a domain is blocked (or not) by a compiled list. It reads what a compile
 * reports, the rules kept with their provenance and the lines removed with their step and
 * reason, from a compile in progress (`explainCollector`) or from a report file
 * (`parseExplainReport`), and takes from them the rules about the domain or one of its parents.
 * The decision is AdGuard's (precedence.ts): the highest-ranking rule that applies wins.
 */
import type { KeptRule, RemovedLine } from '../pipeline/report.js';
import type { OutputFormat } from '../output/formats.js';
import { type DnsRule, dnsName, dnsRule, isAtOrUnder } from '../rules/dns-rule.js';
import { rank } from '../output/precedence.js';
import { InputError } from '../errors/index.js';

/** What `explain` reads: the output format, the kept rules, the removed lines (all, or those about the domain). */
export interface ExplainInput {
  format: OutputFormat;
  kept: Iterable<KeptRule>;
  removed: Iterable<Omit<RemovedLine, 'code'> & { code: string }>;
}

/** A rule about the domain: which name of the rule covers it, and what the rule does there. */
export interface ExplainedRule extends KeptRule {
  /** The domain itself or the parent the rule names. */
  name: string;
  kind: 'block' | 'allow';
  /**
   * `block` or `allow`; `conditional` for a rule whose modifiers (other than `$important`)
   * limit when it applies, so the domain alone does not decide it.
   */
  effect: 'block' | 'allow' | 'conditional';
  /** The rule covers the name's subdomains too. */
  subdomains: boolean;
  important: boolean;
  modifiers: string[];
}

export interface ExplainedRemoval extends ExplainedRule {
  /** The step that removed it (`Deduplicate`, `Allowlist`, `format:hosts`, …), its code and reason. */
  transformation: string;
  code: string;
  reason: string;
}

export interface Explanation {
  /** The domain as rules name it: lowercase, punycode. */
  domain: string;
  format: OutputFormat;
  blocked: boolean;
  /** The kept rule that decides (the highest-ranking that applies), or null when none applies. */
  decidedBy: ExplainedRule | null;
  /** Kept rules (written in the format) about the domain or a parent, in list order. */
  rules: ExplainedRule[];
  /** Rules about the domain or a parent removed on the way, in the order they were removed. */
  removed: ExplainedRemoval[];
}

/** The domain to explain, from a name (IDN or punycode) or a URL; an InputError when it is neither. */
export function explainDomain(input: string): string {
  let text = input.trim();
  if (text.includes('://')) {
    try {
      text = new URL(text).hostname;
    } catch {
      // Not a URL after all: judged as a name below.
    }
  }
  const name = dnsName(text);
  if (name === null) throw new InputError([`${JSON.stringify(input)} is not a domain name`]);
  return name;
}

type Covering = Pick<ExplainedRule, 'name' | 'kind' | 'effect' | 'subdomains' | 'important' | 'modifiers'>;

/** How `rule` covers `domain` (a name of it, or its regular expression), or null when it does not. */
function covering(rule: DnsRule | null, domain: string): Covering | null {
  if (rule === null) return null;
  if (rule.kind === 'other') {
    if (rule.regex === undefined) return null;
    try {
      if (!new RegExp(rule.regex, 'i').test(domain)) return null;
    } catch {
      return null;
    }
    const kind = rule.allow ? 'allow' : 'block';
    return { name: domain, kind, effect: kind, subdomains: false, important: false, modifiers: [] };
  }
  const name = rule.names.find((n) => (rule.subdomains ? isAtOrUnder(domain, n) : n === domain));
  if (name === undefined) return null;
  const effect = rule.modifiers.length > 0 ? 'conditional' : rule.kind;
  return {
    name,
    kind: rule.kind,
    effect,
    subdomains: rule.subdomains,
    important: rule.important,
    modifiers: rule.modifiers,
  };
}

/**
 * A test for rules about `domain`, to keep only those while a compile hands over every line. A
 * rule about it names the domain or a parent, each ending in its last label: a line without that
 * label (and without upper case, non-ASCII or a `/` of a regular expression) is passed over unread.
 */
export function concerns(domain: string): (text: string) => boolean {
  const last = domain.slice(domain.lastIndexOf('.') + 1);
  const mayNameIt = (text: string) => text.includes(last) || text.includes('/') || /[A-Z\u0080-\uffff]/.test(text);
  return (text) => mayNameIt(text) && covering(dnsRule(text), domain) !== null;
}

/**
 * What a compile collects for `explain`: its `onKept` and `onRemoved` keep only the rules about
 * `domain` (a name already checked by `explainDomain`), and `input` reads them for `format`.
 */
export function explainCollector(domain: string) {
  const about = concerns(domain);
  const kept: KeptRule[] = [];
  const removed: RemovedLine[] = [];
  return {
    onKept: (rule: KeptRule) => void (about(rule.text) && kept.push(rule)),
    onRemoved: (line: RemovedLine) => void (about(line.text) && removed.push(line)),
    input: (format: OutputFormat): ExplainInput => ({ format, kept, removed }),
  };
}

const identity = (r: KeptRule) => `${r.source}\u0000${r.line}\u0000${r.text}`;

/** Why `domain` is blocked or not by the list `input` describes. */
export function explain(domainInput: string, input: ExplainInput): Explanation {
  const domain = explainDomain(domainInput);
  const removed: ExplainedRemoval[] = [];
  // Kept rules the output format left out (it writes a narrowed one, for its name alone).
  const leftOut = new Map<string, number>();
  const narrowed = new Set<string>();
  for (const line of input.removed) {
    const isFormat = line.transformation.startsWith('format:');
    if (isFormat && line.code === 'format-narrowed') narrowed.add(identity(line));
    else if (isFormat) leftOut.set(identity(line), (leftOut.get(identity(line)) ?? 0) + 1);
    const cover = covering(dnsRule(line.text), domain);
    if (cover === null) continue;
    // A narrowed rule still written for this very name blocks it: it is among the kept rules.
    if (line.code === 'format-narrowed' && cover.name === domain) continue;
    const { source, line: at, text, transformation, code, reason } = line;
    removed.push({ source, line: at, text, ...cover, transformation, code, reason });
  }
  const rules: ExplainedRule[] = [];
  for (const rule of input.kept) {
    const key = identity(rule);
    const left = leftOut.get(key) ?? 0;
    if (left > 0) {
      leftOut.set(key, left - 1);
      continue;
    }
    const cover = covering(dnsRule(rule.text), domain);
    if (cover === null) continue;
    if (narrowed.has(key) && cover.name !== domain) continue;
    rules.push({ source: rule.source, line: rule.line, text: rule.text, ...cover });
  }
  let decidedBy: ExplainedRule | null = null;
  for (const rule of rules) {
    if (rule.effect === 'conditional') continue;
    if (decidedBy === null || rank(rule) > rank(decidedBy)) decidedBy = rule;
  }
  return { domain, format: input.format, blocked: decidedBy?.effect === 'block', decidedBy, rules, removed };
}
