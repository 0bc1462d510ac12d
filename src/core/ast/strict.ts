import { DomainListParser, modifierValidator, type AnyRule, type DomainList, type Modifier } from '@adguard/agtree';
import { DNS_MODIFIERS, DOMAIN_LIST_MODIFIERS, PRODUCTS, type Syntax } from './syntax.js';
import { domainToAscii } from '../transforms/convert-to-ascii.js';
import { PARSER_OPTIONS } from './parse-rule.js';

const BARE_PATTERNS = new Set(['', '|', '||', '*', '^', '|*', '||*', '*^', '||^', '|^']);
const DNS_TYPES = new Set([
  'A',
  'AAAA',
  'AFSDB',
  'APL',
  'CAA',
  'CDNSKEY',
  'CDS',
  'CERT',
  'CNAME',
  'CSYNC',
  'DHCID',
  'DLV',
  'DNAME',
  'DNSKEY',
  'DS',
  'EUI48',
  'EUI64',
  'HINFO',
  'HIP',
  'HTTPS',
  'IPSECKEY',
  'KEY',
  'KX',
  'LOC',
  'MX',
  'NAPTR',
  'NS',
  'NSEC',
  'NSEC3',
  'NSEC3PARAM',
  'OPENPGPKEY',
  'PTR',
  'RP',
  'RRSIG',
  'SIG',
  'SMIMEA',
  'SOA',
  'SRV',
  'SSHFP',
  'SVCB',
  'TA',
  'TKEY',
  'TLSA',
  'TSIG',
  'TXT',
  'URI',
  'ZONEMD',
  'ANY',
]);
const DNS_RCODES = new Set([
  'NOERROR',
  'NXDOMAIN',
  'REFUSED',
  'SERVFAIL',
  'FORMERR',
  'NOTIMP',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
]);
const CTAGS = new Set([
  'device_pc',
  'device_phone',
  'device_tablet',
  'device_laptop',
  'device_tv',
  'device_other',
  'device_nas',
  'device_gameconsole',
  'device_printer',
  'device_camera',
  'os_android',
  'os_ios',
  'os_windows',
  'os_linux',
  'os_macos',
  'os_other',
  'user_admin',
  'user_regular',
  'user_child',
]);

function listItems(value: string): string[] {
  return value.split('|').map((v) => (v.startsWith('~') ? v.substring(1) : v));
}

/** AdGuard DNS modifiers, which AGTree's tables lack: the value each one must have. */
function dnsModifierProblem(name: string, value: string | undefined): string | null {
  if (!value) return `Value is required for the modifier: '${name}'`;
  if (name === 'dnstype') {
    const bad = listItems(value).find((t) => !DNS_TYPES.has(t));
    return bad === undefined ? null : `Unknown DNS record type '${bad}' in $dnstype`;
  }
  if (name === 'ctag') {
    const bad = listItems(value).find((t) => !CTAGS.has(t));
    return bad === undefined ? null : `Unknown client tag '${bad}' in $ctag`;
  }
  if (name === 'dnsrewrite' && value.includes(';')) {
    const [rcode, , ...rest] = value.split(';');
    if (rest.length !== 1 || !DNS_RCODES.has(rcode)) return `Invalid $dnsrewrite value '${value}'`;
  }
  return null;
}

/** Whether `domain` may appear in a domain list: a hostname, `*.host`, `host.*`, `*`, or a `/regex/`. */
export function domainProblem(domain: string): string | null {
  if (domain === '*') return null;
  if (domain.length > 2 && domain.startsWith('/') && domain.endsWith('/')) {
    try {
      new RegExp(domain.slice(1, -1));
      return null;
    } catch (e) {
      return `Invalid regular expression domain ${domain}: ${(e as Error).message}`;
    }
  }
  let host = domain.startsWith('*.') ? domain.substring(2) : domain;
  if (host.endsWith('.*')) host = host.slice(0, -2);
  const labels = host.split('.');
  const ascii = domainToAscii(host);
  const ok =
    ascii !== '' &&
    labels.every((l) => l.length > 0 && !l.startsWith('-') && !l.endsWith('-')) &&
    !/[\s/:?#@[\]]/.test(host);
  return ok ? null : `Invalid domain '${domain}'`;
}

/** The first problem `check` finds among `items`, or null. */
function firstProblem<T>(items: readonly T[] | undefined, check: (item: T) => string | null): string | null {
  for (const item of items ?? []) {
    const problem = check(item);
    if (problem) return problem;
  }
  return null;
}

const domainListProblem = (list: DomainList | undefined) => firstProblem(list?.children, (d) => domainProblem(d.value));

function modifierProblem(modifier: Modifier, syntax: Syntax, exception: boolean): string | null {
  const name = modifier.name.value;
  const value = modifier.value?.value;
  if (DNS_MODIFIERS.has(name)) return dnsModifierProblem(name, value);
  const platforms = syntax === 'Common' ? PRODUCTS : PRODUCTS.filter(([s]) => s === syntax);
  const results = platforms.map(([, platform]) => modifierValidator.validate(platform, modifier, exception));
  if (!results.some((r) => r.valid)) return results[0].error ?? `Invalid modifier '${name}'`;
  if (DOMAIN_LIST_MODIFIERS.has(name) && value) {
    try {
      return domainListProblem(DomainListParser.parse(value, PARSER_OPTIONS, 0, '|'));
    } catch (e) {
      return (e as Error).message;
    }
  }
  return null;
}

/**
 * The checks strict mode adds on top of a non-tolerant parse: per-product modifier
 * validation (plus AdGuard's DNS modifiers), compiled regex patterns, no whitespace in
 * network patterns, no empty or bare `|`, `||`, `*`, `^` patterns, valid domain lists.
 */
export function strictProblem(ast: AnyRule, syntax: Syntax): string | null {
  if (ast.type === 'NetworkRule') {
    const pattern = ast.pattern.value;
    if (BARE_PATTERNS.has(pattern)) return `Pattern '${pattern}' is empty or matches everything`;
    if (/\s/.test(pattern)) return `Pattern '${pattern}' contains whitespace`;
    if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
      try {
        new RegExp(pattern.slice(1, -1));
      } catch (e) {
        return `Invalid regular expression pattern: ${(e as Error).message}`;
      }
    }
    return firstProblem(ast.modifiers?.children as Modifier[], (m) => modifierProblem(m, syntax, ast.exception));
  }
  if (ast.category !== 'Cosmetic') return null;
  const modifiers = (ast as { modifiers?: { children: Modifier[] } }).modifiers?.children;
  return (
    domainListProblem((ast as { domains?: DomainList }).domains) ??
    firstProblem(modifiers, (m) => modifierProblem(m, syntax === 'Common' ? 'AdGuard' : syntax, false))
  );
}
