/**
 * What a line of a compiled list means to a DNS server: which names it blocks or allows, for the
 * name alone or with its subdomains. The output formats, the allowlist and `explain` read rules
 * through this one function, so they cannot disagree on what a rule is about. Names read the way
 * AdGuard's DNS filtering syntax reads them: a hosts line and a bare domain are the exact name,
 * `|name^` too, `||name^` the name and its subdomains.
 */
import ipaddr from 'ipaddr.js';
import { domainToAscii } from '../transforms/convert-to-ascii.js';
import {
  containsNonAscii,
  isComment,
  isEtcHostsRule,
  isJustDomain,
  parseAdblockRule,
  plainHostRuleHostname,
} from './rule-text.js';

/** A rule about whole domain names. */
export interface DomainRule {
  kind: 'block' | 'allow';
  /** Lowercase, punycode, without a final dot. */
  names: string[];
  /** True for the names and their subdomains (`||name^`); false for the names alone. */
  subdomains: boolean;
  /** `$important`: the rule outranks exceptions (and an important exception outranks it). */
  important: boolean;
  /** Modifiers other than `$important`, which limit when the rule applies; empty for a plain rule. */
  modifiers: string[];
}

/** Why a line is not a rule about whole domain names; the codes are removal codes of the formats. */
export type ShapeCode = 'format-cosmetic' | 'format-regex' | 'format-pattern' | 'format-rewrite';

/** Any other rule: cosmetic, a regular expression, a URL pattern, a hosts line that answers an address. */
export interface OtherRule {
  kind: 'other';
  code: ShapeCode;
  reason: string;
  /** The hosts it names, when it names any (`||host/path`, `1.2.3.4 host`), for the allowlist. */
  names: string[];
  allow: boolean;
  /** A regular expression rule's expression (`/…/`), for matching it against a name. */
  regex?: string;
}

export type DnsRule = DomainRule | OtherRule;

const NAME_RE = /^[a-z0-9_-]{1,63}(?:\.[a-z0-9_-]{1,63})*$/;
const IPV4_RE = /^\d{1,3}(?:\.\d{1,3}){3}$/;
/** `||name^`, `|name^` (with an optional final `|`): the prefix and the name. */
const HOST_PATTERN_RE = /^(\|\|?)([^/^*|$:\s]+)\^\|?$/;
/** `||host` followed by the end, a path, a port or more after the separator. */
const URL_HOST_RE = /^\|\|([^/^*|$:\s]+)(?:$|[/:^])/;
/** Separators of cosmetic, HTML-filtering and scriptlet rules. */
const COSMETIC_RE = /#@?(?:\$\??|%|\?)?#|\$@?\$/;

/**
 * A name as DNS servers take it: lowercase, punycode, no final dot, labels of letters, digits,
 * `-` and `_`, 253 characters at most; null for anything else (an IP address among them).
 */
export function dnsName(raw: string): string | null {
  let name = raw.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (containsNonAscii(name)) name = domainToAscii(name);
  if (name.length === 0 || name.length > 253 || !NAME_RE.test(name) || IPV4_RE.test(name)) return null;
  return name;
}

/**
 * The name of `||name^` in lowercase when DNS takes it as it is, else null (and `dnsRule` reads
 * the line the long way): the shape that dominates DNS lists, checked by hand, without a regex.
 */
export function plainRuleName(text: string): string | null {
  const name = plainHostRuleHostname(text);
  if (name === null || name.length > 253) return null;
  let label = 0;
  let digitsOnly = true;
  for (let i = 0; i < name.length; i += 1) {
    const c = name.charCodeAt(i);
    if (c === 46 /* . */) {
      if (label === 0) return null;
      label = 0;
    } else {
      label += 1;
      if (label > 63) return null;
      if (c < 48 || c > 57) digitsOnly = false;
    }
  }
  // A final dot, or what may be an IPv4 address: the long way decides.
  return label === 0 || digitsOnly ? null : name;
}

/** The name and each of its parents, the name first: `a.b.c`, `b.c`, `c`. */
export function nameAndParents(name: string): string[] {
  const out = [name];
  for (let dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.', dot + 1)) out.push(name.slice(dot + 1));
  return out;
}

/** True when `name` is `parent` or under it, label by label (`notexample.org` is not under `example.org`). */
export function isAtOrUnder(name: string, parent: string): boolean {
  return name === parent || (name.endsWith(parent) && name.charCodeAt(name.length - parent.length - 1) === 46);
}

/** The addresses with which a hosts line blocks a name rather than answering with an address. */
function isBlockingAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return bare === '0.0.0.0' || bare === '127.0.0.1';
  if (!ipaddr.IPv6.isValid(bare)) return false;
  const range = ipaddr.IPv6.parse(bare).range();
  return range === 'unspecified' || range === 'loopback';
}

const other = (code: ShapeCode, reason: string, names: string[] = [], allow = false): OtherRule => ({
  kind: 'other',
  code,
  reason,
  names,
  allow,
});

function hostsLine(text: string): DnsRule {
  const [address, ...rest] = text.replace(/#.*$/, '').trim().split(/\s+/);
  const names = rest.map(dnsName);
  const valid = names.filter((n): n is string => n !== null);
  if (!isBlockingAddress(address)) {
    return other('format-rewrite', `answers ${address}: a rewrite, not a block`, valid);
  }
  const bad = rest.find((_, i) => names[i] === null);
  if (bad !== undefined) return other('format-pattern', `${bad} is not a domain name`, valid);
  return { kind: 'block', names: valid, subdomains: false, important: false, modifiers: [] };
}

/**
 * The DNS meaning of one line of a list, or null for a comment or a blank line.
 */
export function dnsRule(line: string): DnsRule | null {
  const text = line.trim();
  if (text.length === 0 || isComment(text)) return null;
  const plain = plainRuleName(text);
  if (plain !== null) return { kind: 'block', names: [plain], subdomains: true, important: false, modifiers: [] };
  if (isEtcHostsRule(text)) return hostsLine(text);
  if (isJustDomain(text) || (containsNonAscii(text) && /^[^\s|^$/*@#!]+$/.test(text))) {
    const name = dnsName(text);
    if (name !== null) return { kind: 'block', names: [name], subdomains: false, important: false, modifiers: [] };
  }
  if (COSMETIC_RE.test(text)) return other('format-cosmetic', 'a cosmetic, HTML filtering or scriptlet rule');
  const rule = parseAdblockRule(text);
  if (!rule) return other('format-pattern', 'not a rule');
  const { pattern, allow } = rule;
  if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
    return { ...other('format-regex', 'a regular expression rule', [], allow), regex: pattern.slice(1, -1) };
  }
  const options = (rule.options ?? []).map((o) => o.name.toLowerCase());
  const host = HOST_PATTERN_RE.exec(pattern);
  const name = host ? dnsName(host[2]) : null;
  if (host && name !== null) {
    return {
      kind: allow ? 'allow' : 'block',
      names: [name],
      subdomains: host[1] === '||',
      important: options.includes('important'),
      modifiers: options.filter((o) => o !== 'important'),
    };
  }
  const urlHost = URL_HOST_RE.exec(pattern);
  const named = urlHost ? dnsName(urlHost[1]) : null;
  const what = host ? `${host[2]} is not a domain name` : 'a URL pattern, not a whole domain name';
  return other('format-pattern', what, named === null ? [] : [named], allow);
}
