import { getPublicSuffix, parse as parseDomain } from 'tldts';
import { isOwnPublicSuffixAt, NOT_OWN_SUFFIX, OWN_UNKNOWN_SUFFIX, publicSuffixKind } from './public-suffix.js';
import { decodeRange } from '../engine/packed.js';
import { StringTable } from '../transforms/string-table.js';
import { classifyIpPattern, mayBeIpPattern } from './ip-pattern.js';
import {
  etcHostsHostnames,
  isComment,
  isEtcHostsRule,
  isHostPatternCode,
  parseAdblockRule,
  plainHostRuleHostname,
} from './rule-text.js';

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
const MIN_PATTERN_LENGTH = 5;
const ALNUM_RE = /[a-zA-Z0-9]/;
const DOMAIN_CHARS_RE = /^[a-zA-Z0-9-.*|^]+$/;
const EXACT_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
const EXACT_DOMAIN_RE = new RegExp(`^(?:\\|\\|)?(?:\\*\\.|\\.)?(${EXACT_LABEL}(?:\\.${EXACT_LABEL})*\\.?)\\^\\|?$`);
const CARET_END_RE = /\^\|?$/;

/** Reasons also given by the WebAssembly kernel's verdicts (validate.ts, `kernelVerdicts`). */
export const IP_NOT_ALLOWED = 'IP address is not allowed';
export const NON_DOMAIN_CHARACTERS = 'contains characters that cannot be in a domain name';

/** The reason a hostname cannot be in a blocklist, or null when it can. */
function hostnameProblem(
  hostname: string | null,
  opts: ValidityOptions,
  hasLimitModifier: boolean,
  clean = false,
): string | null {
  return clean
    ? cleanHostnameProblem(hostname as string, opts, hasLimitModifier)
    : tldtsHostnameProblem(hostname, opts, hasLimitModifier);
}

/** `hostnameProblem` as tldts decides it: the reference's check. */
export function tldtsHostnameProblem(
  hostname: string | null,
  opts: ValidityOptions,
  hasLimitModifier: boolean,
): string | null {
  const result = parseDomain(hostname as string);
  if (!result.hostname || !ALNUM_RE.test(result.hostname)) return `malformed hostname ${hostname}`;
  if (!opts.allowIp && result.isIp) return `IP address ${hostname} is not allowed`;
  if (result.hostname === result.publicSuffix && !hasLimitModifier) {
    if (!opts.allowPublicSuffix) return `blocks the whole public suffix ${hostname}`;
    if (!result.isIcann && !result.isPrivate) return `${hostname} is not a known public suffix`;
  }
  return null;
}

/**
 * `tldtsHostnameProblem` of a clean hostname (see cleanHostname), from flc's own walk of the
 * Public Suffix List. Such a name is no IP address and has a letter, so only its public suffix
 * matters: tldts finds it well-formed, and a problem only when the name is its own suffix. That
 * suffix is known (ICANN) when a rule of the list matched, and not when no rule did, which for
 * a name that is its own suffix means a single label such as `localhost`. tldts itself, whose
 * list is built from object literals when it loads, is then needed only for rules off the fast paths.
 */
export function cleanHostnameProblem(
  hostname: string,
  opts: ValidityOptions,
  hasLimitModifier: boolean,
): string | null {
  const own = publicSuffixKind(hostname);
  if (own === NOT_OWN_SUFFIX || hasLimitModifier) return null;
  if (!opts.allowPublicSuffix) return `blocks the whole public suffix ${hostname}`;
  return own === OWN_UNKNOWN_SUFFIX ? `${hostname} is not a known public suffix` : null;
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
  if (!DOMAIN_CHARS_RE.test(toTest)) return NON_DOMAIN_CHARACTERS;

  const ipProblem = ipPatternProblem(pattern, opts, hasDenyallow);
  if (ipProblem) return ipProblem;

  let candidate = pattern;
  if (candidate.startsWith('||')) candidate = candidate.slice(2);
  else if (candidate.startsWith('|')) candidate = candidate.slice(1);
  candidate = candidate.replace(CARET_END_RE, '');
  if (isIpCandidate(candidate)) return opts.allowIp ? null : IP_NOT_ALLOWED;

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

/**
 * True for `[a-z0-9-]` labels that start and end with a letter or digit, at most 63
 * long, 253 in all, with at least one letter (so never an IP address). For such a
 * hostname in `||hostname^` every check of the full path but the public-suffix one
 * passes, and tldts may skip hostname extraction.
 */
export function cleanHostname(host: string): boolean {
  const n = host.length;
  if (n === 0 || n > 253) return false;
  let letter = false;
  let start = 0;
  for (let i = 0; i <= n; i += 1) {
    const c = i < n ? host.charCodeAt(i) : 46;
    if (c === 46) {
      const len = i - start;
      if (len === 0 || len > 63 || host.charCodeAt(start) === 45 || host.charCodeAt(i - 1) === 45) return false;
      start = i + 1;
    } else if (c >= 97 && c <= 122) {
      letter = true;
    } else if (!((c >= 48 && c <= 57) || c === 45)) {
      return false;
    }
  }
  return letter;
}

/** `cleanHostname` of the bytes `[s, e)`. */
export function cleanHostnameAt(b: Uint8Array, s: number, e: number): boolean {
  const n = e - s;
  if (n === 0 || n > 253) return false;
  let kinds = 0;
  let label = s;
  for (let i = s; i < e; i += 1) {
    const kind = HOST_CODE[b[i]];
    kinds |= kind;
    if (kind === DOT) {
      if (i === label || i - label > 63 || b[label] === 45 || b[i - 1] === 45) return false;
      label = i + 1;
    }
  }
  if ((kinds & INVALID) !== 0 || e === label || e - label > 63 || b[label] === 45 || b[e - 1] === 45) return false;
  return (kinds & LETTER) !== 0;
}

const LETTER = 1;
const DOT = 2;
const INVALID = 4;
/**
 * Per byte: a lowercase letter, a dot, a digit or hyphen (0), or anything else (also read by the WebAssembly kernel).
 */
export const HOST_CODE = new Uint8Array(256).fill(INVALID);
for (let c = 97; c <= 122; c += 1) HOST_CODE[c] = LETTER;
for (let c = 48; c <= 57; c += 1) HOST_CODE[c] = 0;
HOST_CODE[45] = 0;
HOST_CODE[46] = DOT;

/**
 * Verdicts on single modifiers, by StringTable's hash of the name's bytes. A list uses a
 * handful of names; the cap keeps a hostile list (a server runs for weeks) from growing it.
 */
const modifierVerdicts = new Map<number, { name: string; problem: string | null }[]>();
const MODIFIER_VERDICTS_CAP = 1024;

/** The options loop's verdict on the single modifier `b[s, e)` (`[a-z0-9_-]` only). */
function modifierProblemAt(b: Uint8Array, s: number, e: number): string | null {
  const h = StringTable.hashBytes(b, s, e);
  const known = modifierVerdicts.get(h) ?? [];
  for (const v of known) if (sameText(v.name, b, s, e)) return v.problem;
  const name = decodeRange(b, s, e);
  const problem = SUPPORTED_MODIFIERS.has(name) ? null : `unsupported modifier $${name}`;
  if (modifierVerdicts.size < MODIFIER_VERDICTS_CAP) {
    known.push({ name, problem });
    modifierVerdicts.set(h, known);
  }
  return problem;
}

/**
 * `ruleProblem` of the line `b[s, e)`. Decided on bytes: `||hostname^` and `@@||hostname^`
 * with a clean hostname (the exception mark changes nothing in these checks); the same
 * shapes with one unsupported modifier (`$third-party`), which fail in the options loop
 * before anything else is looked at; `||a.b.c.d^` with a plain IPv4 address; and lines
 * that cannot be a rule for their characters (cosmetic rules). Every other line goes to
 * `ruleProblem`.
 */
export function ruleProblemAt(b: Uint8Array, s: number, e: number, opts: ValidityOptions): string | null {
  const p = b[s] === 64 && b[s + 1] === 64 ? s + 2 : s;
  if (e - p >= 4 && b[p] === 124 && b[p + 1] === 124) {
    if (b[e - 1] === 94 && cleanHostnameAt(b, p + 2, e - 1)) {
      if (!isOwnPublicSuffixAt(b, p + 2, e - 1)) return null;
      return hostnameProblem(decodeRange(b, p + 2, e - 1), opts, false, true);
    }
    // The pattern is exact and passes every check until tldts sees an IP address.
    if (b[e - 1] === 94 && isPlainIpv4At(b, p + 2, e - 1)) return opts.allowIp ? null : IP_NOT_ALLOWED;
    let caret = p + 2;
    while (caret < e && isHostPatternCode(b[caret])) caret += 1;
    if (caret + 2 < e && b[caret] === 94 && b[caret + 1] === 36 && isModifierNameAt(b, caret + 2, e)) {
      const problem = modifierProblemAt(b, caret + 2, e);
      if (problem !== null) return problem;
    }
  }
  if (hasNonDomainCharAt(b, s, e)) return NON_DOMAIN_CHARACTERS;
  return ruleProblem(decodeRange(b, s, e), opts);
}

/** `d.d.d.d`, each 0–255 without a leading zero: an address for tldts and the IP-pattern checks alike. */
function isPlainIpv4At(b: Uint8Array, s: number, e: number): boolean {
  let octets = 0;
  let i = s;
  while (i < e) {
    const first = i;
    let value = 0;
    while (i < e && b[i] >= 48 && b[i] <= 57 && i - first < 3) value = value * 10 + b[i++] - 48;
    const digits = i - first;
    if (digits === 0 || value > 255 || (digits > 1 && b[first] === 48)) return false;
    octets += 1;
    if (i === e) break;
    if (b[i] !== 46 || octets === 4) return false;
    i += 1;
    if (i === e) return false;
  }
  return octets === 4;
}

/**
 * A line the full check rejects for its characters before anything else: it starts with a
 * lowercase letter or digit (no comment, exception, regex or `://`), is at least 5 long, has
 * no whitespace, non-ASCII byte or `$` (no hosts line, trimming or options), and holds a byte
 * outside `[a-zA-Z0-9-.*|^]` — `example.org##.ad` and the like.
 */
function hasNonDomainCharAt(b: Uint8Array, s: number, e: number): boolean {
  if (e - s < 5) return false;
  const c = b[s];
  if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) return false;
  let outside = false;
  for (let i = s + 1; i < e; i += 1) {
    const d = b[i];
    if (d <= 32 || d >= 127 || d === 36) return false;
    if (DOMAIN_CHAR[d] === 0) outside = true;
  }
  return outside;
}

/** DOMAIN_CHARS_RE as a byte table (also read by the WebAssembly kernel). */
export const DOMAIN_CHAR = new Uint8Array(256);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.*|^') DOMAIN_CHAR[c.charCodeAt(0)] = 1;

/** Whether the ASCII `text` equals the bytes `b[s, e)`. */
function sameText(text: string, b: Uint8Array, s: number, e: number): boolean {
  if (text.length !== e - s) return false;
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) !== b[s + i]) return false;
  return true;
}

function isModifierNameAt(b: Uint8Array, s: number, e: number): boolean {
  for (let i = s; i < e; i += 1) {
    const c = b[i];
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95)) return false;
  }
  return true;
}

/**
 * Why the reference's Validate family would drop this line, or null when it is kept.
 * Comments and blank lines are always valid.
 */
export function ruleProblem(ruleText: string, opts: ValidityOptions): string | null {
  const plain = plainHostRuleHostname(ruleText);
  if (plain !== null && cleanHostname(plain)) return hostnameProblem(plain, opts, false, true);
  return fullRuleProblem(ruleText, opts);
}

/** The complete check, without the `||hostname^` fast path (differential tests compare the two). */
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
