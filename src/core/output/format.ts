/**
 * Writes a compiled list in one of the DNS formats (formats.ts). A rule keeps its meaning: one
 * for a domain and its subdomains is written so where the format can say it, else for the name
 * alone (reported as `format-narrowed`); what a format cannot say at all is left out and
 * reported with its own code. Nothing is dropped without a reason in the report.
 */
import ipaddr from 'ipaddr.js';
import type { Lines } from '../transforms/lines.js';
import { InputError } from '../errors/index.js';
import type { TransformContext } from '../transforms/types.js';
import type { RemovalCode } from '../pipeline/diagnostics.js';
import { type DomainRule, dnsRule } from '../rules/dns-rule.js';
import { SYNTHETIC } from '../transforms/lines.js';
import { FORMATS, type DnsFormat, type FormatOptions, type FormatSpec } from './formats.js';
import { mayOverride, Overrides, rank } from './precedence.js';

export { OUTPUT_FORMATS, type OutputFormat } from './formats.js';

/**
 * The addresses for the `hosts` format from one or more values, each a comma-separated list
 * (`0.0.0.0,::`): IPv4 or IPv6 addresses, in order, once each. An InputError names a bad one.
 */
export function hostsAddresses(values: readonly string[]): string[] {
  const out: string[] = [];
  const bad: string[] = [];
  for (const value of values.flatMap((v) => v.split(',')).map((v) => v.trim())) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(value) && !ipaddr.IPv6.isValid(value)) bad.push(value);
    else if (!out.includes(value)) out.push(value);
  }
  if (bad.length > 0 || out.length === 0) {
    const what = bad.length > 0 ? bad.map((b) => JSON.stringify(b)).join(', ') : 'nothing';
    throw new InputError([`--hosts-address takes IPv4 or IPv6 addresses (e.g. 0.0.0.0,::), got ${what}`]);
  }
  return out;
}

export interface FormattedList {
  lines: Lines;
  /** Rule lines written (not comments, blank lines or the format's preamble). */
  ruleCount: number;
  /** How many rules each code left out or changed. */
  counts: Map<RemovalCode, number>;
}

/** The reason a format writes a rule differently, or leaves it out, with its code. */
type Verdict = [RemovalCode, string];

const noException = (spec: FormatSpec): Verdict => ['format-exception', `${spec.name} has no form for an exception`];

/** How `spec` takes a rule about domain names, before any other rule is looked at. */
function verdictOf(rule: DomainRule, spec: FormatSpec): Verdict | null {
  if (rule.modifiers.length > 0) {
    const list = rule.modifiers.map((m) => `$${m}`).join(', ');
    return ['format-modifier', `${list} limits when it applies, which ${spec.name} cannot say`];
  }
  if (rule.kind === 'allow' && !spec.allow) return noException(spec);
  if (rule.kind === 'allow' && !rule.subdomains) {
    return ['format-exception', `${spec.name} cannot except a name without its subdomains`];
  }
  return null;
}

/** A comment line in the format's comment syntax. */
function commentLine(line: string, spec: FormatSpec): string {
  if (spec.comment === '#' && line.startsWith('#')) return line;
  return spec.comment + line.slice(1);
}

/**
 * The rules that may override others or claim a slot (exceptions, important blocks), with
 * those overridden in turn set aside: only they decide for the rest. A cheap test on the text
 * picks the lines that may be one.
 */
function specialRules(lines: Lines, spec: FormatSpec, options: FormatOptions) {
  const overrides = new Overrides();
  const special: { rule: DomainRule; text: string }[] = [];
  for (const text of lines.text) {
    if (!text.includes('@@') && !(text.includes('$') && /important/i.test(text))) continue;
    const rule = dnsRule(text);
    if (rule === null || rule.kind === 'other' || !mayOverride(rule)) continue;
    overrides.add(rule, text);
    special.push({ rule, text });
  }
  // Per slot, the highest rank of a line written there: a lower one gives way. Only the names of
  // these rules have slots to look at.
  const slots = new Map<string, number>();
  const names = new Set<string>();
  for (const { rule } of special) {
    if (verdictOf(rule, spec) !== null) continue;
    for (const name of rule.names) {
      if (overrides.overriding(rule, name) !== null) continue;
      names.add(name);
      for (const line of spec.lines(name, rule.subdomains && spec.subdomains, rule.kind === 'allow', options)) {
        const slot = spec.slot(line);
        slots.set(slot, Math.max(slots.get(slot) ?? 0, rank(rule)));
      }
    }
  }
  return { overrides, slots, names };
}

/**
 * `lines` (a compiled list in adblock syntax) in `format`. Comments keep their text in the
 * format's comment syntax, blank lines stay, the format's preamble comes first.
 */
export function writeFormat(
  lines: Lines,
  format: DnsFormat,
  options: FormatOptions,
  ctx: TransformContext,
): FormattedList {
  const spec = FORMATS[format];
  const { overrides, slots, names: slotted } = specialRules(lines, spec, options);
  const counts = new Map<RemovalCode, number>();
  const preamble = spec.preamble(options);
  const text: string[] = [...preamble];
  const from: number[] = preamble.map(() => SYNTHETIC);
  let ruleCount = 0;
  const note = (i: number, [code, reason]: Verdict) => {
    counts.set(code, (counts.get(code) ?? 0) + 1);
    if (ctx.reporting) ctx.removed(lines.text[i], lines.from?.[i], code, reason);
  };
  const push = (i: number, out: string) => {
    text.push(out);
    if (lines.from) from.push(lines.from[i]);
  };
  /** Writes what it can of `rule` (line `i`); what the report must say about it, or null. */
  const writeRule = (rule: DomainRule, i: number): Verdict | null => {
    const r = rank(rule);
    const overridden: string[] = [];
    let wrote = 0;
    for (const name of rule.names) {
      const by = overrides.overriding(rule, name);
      if (by !== null) {
        overridden.push(`${name} (by ${by})`);
        continue;
      }
      // Only a name that an exception or an important rule answers for has a slot to give way in.
      const contested = slotted.has(name);
      for (const line of spec.lines(name, rule.subdomains && spec.subdomains, rule.kind === 'allow', options)) {
        if (contested && (slots.get(spec.slot(line)) ?? 0) > r) continue;
        push(i, line);
        wrote += 1;
      }
    }
    ruleCount += wrote;
    if (overridden.length > 0) return ['format-overridden', `overridden for ${overridden.join(', ')}`];
    if (wrote === 0) return ['format-overridden', 'a rule of a higher rank answers for it'];
    if (rule.subdomains && !spec.subdomains) {
      return ['format-narrowed', `written for ${rule.names.join(', ')} alone: ${spec.name} cannot block subdomains`];
    }
    return null;
  };
  for (let i = 0; i < lines.text.length; i += 1) {
    const trimmed = lines.text[i].trim();
    const rule = dnsRule(trimmed);
    if (trimmed.length === 0) push(i, '');
    else if (rule === null) push(i, commentLine(trimmed, spec));
    else if (rule.kind === 'other') note(i, rule.allow && !spec.allow ? noException(spec) : [rule.code, rule.reason]);
    else {
      const verdict = verdictOf(rule, spec) ?? writeRule(rule, i);
      if (verdict !== null) note(i, verdict);
    }
  }
  return { lines: lines.from ? { text, from: Float64Array.from(from) } : { text }, ruleCount, counts };
}
