import { getPublicSuffix, parse as parseDomain } from 'tldts';
import { classifyIpPattern, mayBeIpPattern } from './ip-pattern.js';
import { etcHostsHostnames, isComment, isEtcHostsRule, NAME_LIMITS, parseAdblockRule } from './rule-text.js';

export interface ValidityOptions {
  allowIp: boolean;
  allowPublicSuffix: boolean;
}

/** Modifiers that make a rule about specific clients or domains, so a bare TLD is fine. */
const LIMIT_MODIFIERS = new Set(['denyallow', 'badfilter', 'client']);
/** Modifiers a hosts-level (DNS) blocker understands; any other one fails validation. */
export const SUPPORTED_MODIFIERS: ReadonlySet<string> = new Set([
  'important',
  '~important',
  'dnstype',
  'dnsrewrite',
  'ctag',
  ...LIMIT_MODIFIERS,
]);
/** A shorter pattern is too short, unless it names a domain exactly (the kernel reads it too). */
export const MIN_PATTERN_LENGTH = 5;
const ALNUM_RE = /[a-zA-Z0-9]/;
const DOMAIN_CHARS_RE = /^[a-zA-Z0-9-.*|^]+$/;
const EXACT_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
const EXACT_DOMAIN_RE = new RegExp(`^(?:\\|\\|)?(?:\\*\\.|\\.)?(${EXACT_LABEL}(?:\\.${EXACT_LABEL})*\\.?)\\^\\|?$`);
const CARET_END_RE = /\^\|?$/;

/**
 * tldts' options for a clean hostname (see cleanHostname): it is its own hostname, valid and no
 * IP address, so tldts need not look for one, check it or tell it from a URL.
 */
const CLEAN_NAME = { extractHostname: false, validateHostname: false, detectIp: false, mixedInputs: false };

/**
 * The reason a hostname cannot be in a blocklist, or null when it can: the reference's check, by
 * tldts (with lighter options for a clean name, which decide alike).
 */
export function hostnameProblem(
  hostname: string | null,
  opts: ValidityOptions,
  hasLimitModifier: boolean,
  clean = false,
): string | null {
  const result = parseDomain(hostname as string, clean ? CLEAN_NAME : undefined);
  if (!result.hostname || !ALNUM_RE.test(result.hostname)) return `malformed hostname ${hostname}`;
  if (!opts.allowIp && result.isIp) return `IP address ${hostname} is not allowed`;
  if (result.hostname === result.publicSuffix && !hasLimitModifier) {
    if (!opts.allowPublicSuffix) return `blocks the whole public suffix ${hostname}`;
    if (!result.isIcann && !result.isPrivate) return `${hostname} is not a known public suffix`;
  }
  return null;
}

/** `||example.org^`, `.org^`, `*.org^`: the bare domain to check, else null. */
function exactDomain(pattern: string): string | null {
  const m = EXACT_DOMAIN_RE.exec(pattern);
  if (!m) return null;
  const host = m[1];
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** Whether tldts would see an IP address in this candidate; cheap for ordinary names. */
function isIpCandidate(candidate: string): boolean {
  if (!mayBeIpPattern(candidate) && !candidate.includes(':') && !candidate.includes('/') && !candidate.includes('[')) {
    return false;
  }
  return parseDomain(candidate).isIp === true;
}

function ipPatternProblem(pattern: string, opts: ValidityOptions, hasDenyallow: boolean): string | null {
  const ip = mayBeIpPattern(pattern) ? classifyIpPattern(pattern) : null;
  if (!ip) return null;
  if (hasDenyallow) return '$denyallow is not supported for IP patterns';
  if (ip.prefix === '' && ip.hasCaret && ip.octetCount >= 2) return 'IP-suffix pattern matches unpredictably';
  if (!pattern.includes('^')) {
    const prefixlessWildcard =
      (ip.octetCount === 3 || ip.octetCount === 4) && (ip.hasTrailingDot || ip.hasTrailingWildcard) && ip.prefix === '';
    if (ip.isTooWide || ip.isAmbiguous3Octet || prefixlessWildcard) return 'IP pattern is too wide or ambiguous';
  }
  if (ip.prefix !== '' && (ip.octetCount < 4 || ip.hasTrailingDot || ip.hasTrailingWildcard)) {
    const allowedSubnet = ip.octetCount === 3 && ip.isSubnetWildcard && !ip.hasCaret && ip.prefix === '||';
    if (!opts.allowIp || !allowedSubnet) return 'IP subnet pattern is not allowed';
  }
  return null;
}

function adblockRuleProblem(ruleText: string, opts: ValidityOptions): string | null {
  const rule = parseAdblockRule(ruleText);
  if (!rule) return 'not an adblock rule';
  const { pattern } = rule;
  let hasLimitModifier = false;
  let hasDenyallow = false;
  for (const option of rule.options ?? []) {
    if (!SUPPORTED_MODIFIERS.has(option.name)) return `unsupported modifier $${option.name}`;
    if (LIMIT_MODIFIERS.has(option.name)) hasLimitModifier = true;
    if (option.name === 'denyallow') hasDenyallow = true;
  }

  const exact = exactDomain(pattern);
  if (pattern.length < MIN_PATTERN_LENGTH && !exact) return 'pattern is too short';
  if (pattern.startsWith('/') && pattern.endsWith('/')) return null;

  let toTest = pattern;
  if (toTest.startsWith('://')) toTest = toTest.replace(/^[:/]+/, '');
  if (!DOMAIN_CHARS_RE.test(toTest)) return 'contains characters that cannot be in a domain name';

  const ipProblem = ipPatternProblem(pattern, opts, hasDenyallow);
  if (ipProblem) return ipProblem;

  let candidate = pattern;
  if (candidate.startsWith('||')) candidate = candidate.slice(2);
  else if (candidate.startsWith('|')) candidate = candidate.slice(1);
  candidate = candidate.replace(CARET_END_RE, '');
  if (isIpCandidate(candidate)) return opts.allowIp ? null : 'IP address is not allowed';

  const sepIdx = pattern.indexOf('^');
  const wildcardIdx = pattern.indexOf('*');
  if (sepIdx !== -1 && wildcardIdx !== -1 && wildcardIdx > sepIdx) return 'wildcard after the separator';
  if (exact) return hostnameProblem(exact, opts, hasLimitModifier, cleanHostname(exact));
  if (!pattern.startsWith('||') || sepIdx === -1) return null;

  const end = pattern.indexOf('^', 2);
  const domain = end > 2 ? pattern.substring(2, end) : null;
  if (wildcardIdx !== -1) {
    const tld = domain!.replace('*.', '');
    if (domain!.startsWith('*.') && getPublicSuffix(tld) === tld) return hostnameProblem(tld, opts, hasLimitModifier);
    return null;
  }
  const problem = hostnameProblem(domain, opts, hasLimitModifier);
  if (problem) return problem;
  if (pattern.length > sepIdx + 1 && pattern[sepIdx + 1] !== '|') return 'text after the separator';
  return null;
}

/** `cleanHostname`'s classes of bytes, bits the kernel ORs together (engine/kernel-constants.ts). */
export const HOST_CLASSES = { LETTER: 1, DOT: 2, INVALID: 4 } as const;
const { LETTER, DOT, INVALID } = HOST_CLASSES;
/** `cleanHostname`'s classes of bytes (the kernel reads them too): `[a-z]`, a dot, `[0-9-]` (0), anything else. */
export const HOST_CODE = new Uint8Array(256).map((_, c) =>
  c >= 97 && c <= 122 ? LETTER : c === 46 ? DOT : (c >= 48 && c <= 57) || c === 45 ? 0 : INVALID,
);

/**
 * True for `[a-z0-9-]` labels that start and end with a letter or digit, at most 63
 * long, 253 in all, with at least one letter (so never an IP address). For such a
 * hostname in `||hostname^` every check of the full path but the public-suffix one
 * passes, and tldts may skip hostname extraction.
 */
export function cleanHostname(host: string): boolean {
  const n = host.length;
  if (n === 0 || n > NAME_LIMITS.CLEAN_NAME_MAX) return false;
  let letter = false;
  let start = 0;
  for (let i = 0; i <= n; i += 1) {
    const code = i < n ? (HOST_CODE[host.charCodeAt(i)] ?? INVALID) : DOT;
    if (code === DOT) {
      const len = i - start;
      if (len === 0 || len > NAME_LIMITS.LABEL_MAX || host.charCodeAt(start) === 45 || host.charCodeAt(i - 1) === 45)
        return false;
      start = i + 1;
    } else if (code === LETTER) {
      letter = true;
    } else if (code === INVALID) {
      return false;
    }
  }
  return letter;
}

/** DOMAIN_CHARS_RE as a byte table, for the WebAssembly kernel. */
export const DOMAIN_CHAR = new Uint8Array(256).map((_, c) => (DOMAIN_CHARS_RE.test(String.fromCharCode(c)) ? 1 : 0));

/**
 * Why the reference's Validate family would drop this line, or null when it is kept.
 * Comments and blank lines are always valid.
 */
export function fullRuleProblem(ruleText: string, opts: ValidityOptions): string | null {
  if (isComment(ruleText) || ruleText.trim().length === 0) return null;
  if (isEtcHostsRule(ruleText)) {
    const names = etcHostsHostnames(ruleText);
    if (names.length === 0) return 'hosts line without hostnames';
    for (const name of names) {
      const problem = hostnameProblem(name, opts, false);
      if (problem) return problem;
    }
    return null;
  }
  return adblockRuleProblem(ruleText, opts);
}
