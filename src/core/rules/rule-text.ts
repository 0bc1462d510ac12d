/**
 * Text-level rule helpers with the exact semantics of the reference compiler
 * (@adguard/hostlist-compiler 2.1.1). They are deliberately lexical, not AGTree
 * based: the reference decides by these tests, and identical output depends on them.
 */

const DOMAIN_LABEL = '[0-9A-Za-z](?:(?:[0-9A-Za-z]|-){0,61}[0-9A-Za-z])?';
const DOMAIN_RE = new RegExp(`^(?=.{1,255}$)${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})*\\.?$`);
const ETC_HOSTS_RE = /^([a-f0-9.:\][]+)(%[a-z0-9]+)?\s+([^#]+)(#.*)?$/;
const NON_ASCII_RE = /[\u0080-\uffff]/;

/** A comment for every transformation: `!…`, `# …`, a lone `#`, or `####…`. */
export function isComment(line: string): boolean {
  const c = line.charCodeAt(0);
  if (c === 33 /* ! */) return true;
  if (c !== 35 /* # */) return false;
  return line.length === 1 || line.charCodeAt(1) === 32 || line.startsWith('####');
}

/** True for exception rules (`@@…`). */
export function isAllowRule(line: string): boolean {
  return line.startsWith('@@');
}

function isAlnumCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/*
 * What a byte is to the byte scanners below, in one table: a lookup costs the same in every
 * tier of the engine, where a predicate call per character is what makes a long list's
 * first pass (before the loop is optimised) slow. The classes are ordered so that tests
 * read as ranges: `>= LOWER` is `[a-zA-Z0-9]`, `HYPHEN..LOWER` is `[a-z0-9-.]`.
 */
/** `#`, whitespace or a non-ASCII byte: ends a simple hosts line's name. */
const NAME_STOP = 1;
/** Any other byte that is none of the below. */
const OTHER = 2;
const HYPHEN = 3;
const DOT = 4;
/** `[a-z0-9]`. */
const LOWER = 5;
/** `[A-Z]`. */
const UPPER = 6;
/** `[a-f0-9.:[\]]`, the characters of a hosts line's address, as a byte table (Compress). */
export const ADDRESS_CODE = new Uint8Array(256).map((_, c) =>
  (c >= 48 && c <= 58) || (c >= 97 && c <= 102) || c === 46 || c === 91 || c === 93 ? 1 : 0,
);

/**
 * Each byte's class for the WebAssembly kernel's shape checks (kernel.ts copies it into its
 * memory): what ends a hostname, hyphen, dot, `[a-z0-9]`, `[A-Z]`, anything else.
 */
export const BYTE_CLASS = new Uint8Array(256).map((_, c) => {
  if (c === 35 || c >= 128 || isWhitespaceCode(c)) return NAME_STOP;
  if (c === 45) return HYPHEN;
  if (c === 46) return DOT;
  if (c >= 65 && c <= 90) return UPPER;
  if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) return LOWER;
  return OTHER;
});

/**
 * A bare domain name such as `example.org` (at least one dot): labels of letters,
 * digits and inner hyphens, at most 63 long, an optional final dot, 255 in all.
 */
export function isJustDomain(line: string): boolean {
  const n = line.length;
  if (n === 0 || n > 255) return false;
  const trailingDot = line.charCodeAt(n - 1) === 46;
  const end = trailingDot ? n - 1 : n;
  if (end === 0) return false;
  let labels = 0;
  let start = 0;
  for (let i = 0; i <= end; i += 1) {
    const c = i < end ? line.charCodeAt(i) : 46;
    if (c === 46) {
      const len = i - start;
      if (len === 0 || len > 63 || !isAlnumCode(line.charCodeAt(start)) || !isAlnumCode(line.charCodeAt(i - 1)))
        return false;
      labels += 1;
      start = i + 1;
    } else if (!isAlnumCode(c) && c !== 45) {
      return false;
    }
  }
  return labels > 1 || trailingDot;
}

/** Kept for differential tests: the regular expression the reference uses. */
export function isJustDomainByRegex(line: string): boolean {
  return line.includes('.') && DOMAIN_RE.test(line);
}

/** `[a-z0-9-.]`, the characters of a plain `||hostname^` rule's hostname. */
export function isHostPatternCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 46;
}

/**
 * The hostname of a rule that is exactly `||hostname^` with a lowercase
 * `[a-z0-9-.]` hostname and no surrounding whitespace; null for anything else.
 * A fast path for the shape that dominates DNS blocklists.
 */
export function plainHostRuleHostname(line: string): string | null {
  const n = line.length;
  if (n < 4 || line.charCodeAt(0) !== 124 || line.charCodeAt(1) !== 124 || line.charCodeAt(n - 1) !== 94) return null;
  for (let i = 2; i < n - 1; i += 1) {
    const c = line.charCodeAt(i);
    if (!isHostPatternCode(c)) return null;
  }
  return line.substring(2, n - 1);
}

/** An /etc/hosts line: an address-like token, whitespace, then names. */
export function isEtcHostsRule(line: string): boolean {
  const c = line.charCodeAt(0);
  // Cheap first-character gate: the address token only holds [a-f0-9.:[\]].
  if (!((c >= 48 && c <= 58) || (c >= 97 && c <= 102) || c === 46 || c === 91 || c === 93)) return false;
  return ETC_HOSTS_RE.test(line);
}

/** True for the characters JavaScript's `\s` matches. */
export function isWhitespaceCode(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 160) return false;
  return (
    c === 160 ||
    c === 5760 ||
    (c >= 8192 && c <= 8202) ||
    c === 8232 ||
    c === 8233 ||
    c === 8239 ||
    c === 8287 ||
    c === 12288 ||
    c === 65279
  );
}

/**
 * The hostnames of an /etc/hosts line (everything after the address, before `#`).
 * Returns an empty array when the line carries no name.
 */
export function etcHostsHostnames(line: string): string[] {
  let rule = line.trim();
  const hash = rule.indexOf('#');
  if (hash > 0) rule = rule.substring(0, hash);
  let end = rule.length;
  while (end > 0 && isWhitespaceCode(rule.charCodeAt(end - 1))) end -= 1;
  let i = 0;
  while (i < end && !isWhitespaceCode(rule.charCodeAt(i))) i += 1; // the address
  const names: string[] = [];
  while (i < end) {
    while (i < end && isWhitespaceCode(rule.charCodeAt(i))) i += 1;
    const start = i;
    while (i < end && !isWhitespaceCode(rule.charCodeAt(i))) i += 1;
    if (i > start) names.push(rule.substring(start, i));
  }
  return names;
}

/**
 * The single hostname of a line that is exactly `0.0.0.0 name` or `127.0.0.1 name` (one
 * space, no whitespace or `#` in the name), else null. For such lines `isEtcHostsRule` is
 * true and `etcHostsHostnames` gives `[name]`; this answers without the regex and scans.
 */
export function simpleHostsLineHostname(line: string): string | null {
  let start: number;
  if (line.startsWith('0.0.0.0 ')) start = 8;
  else if (line.startsWith('127.0.0.1 ')) start = 10;
  else return null;
  if (start >= line.length) return null;
  for (let i = start; i < line.length; i += 1) {
    const c = line.charCodeAt(i);
    if (c === 35 /* # */ || isWhitespaceCode(c)) return null;
  }
  return line.substring(start);
}

/** True when the text holds any non-ASCII character. */
export function containsNonAscii(text: string): boolean {
  return NON_ASCII_RE.test(text);
}

export interface RuleTokens {
  pattern: string;
  options: string | null;
  allow: boolean;
}

/**
 * Splits a rule into pattern and modifier text at the last unescaped `$`.
 * Returns null for a rule too short to have a pattern (empty, or a lone `@@`).
 */
export function parseRuleTokens(ruleText: string): RuleTokens | null {
  let start = 0;
  let allow = false;
  if (ruleText.startsWith('@@')) {
    allow = true;
    start = 2;
  }
  if (ruleText.length <= start) return null;
  const pattern = ruleText.substring(start);
  if (pattern.startsWith('/') && pattern.endsWith('/') && !pattern.includes('replace=')) {
    return { pattern, options: null, allow };
  }
  for (let i = ruleText.length - 1; i >= start; i -= 1) {
    if (ruleText.charCodeAt(i) === 36 /* $ */ && !((i > start && ruleText.charCodeAt(i - 1) === 92) /* \ */)) {
      return { pattern: ruleText.substring(start, i), options: ruleText.substring(i + 1), allow };
    }
  }
  return { pattern, options: null, allow };
}

export interface RuleOption {
  name: string;
  value: string | null;
}

export interface AdblockRule {
  pattern: string;
  allow: boolean;
  options: RuleOption[] | null;
  /** Set only for plain `||hostname^` patterns. */
  hostname: string | null;
}

/** Splits on `delimiter`, turning `\<delimiter>` into a literal and dropping empty parts. */
export function splitEscaped(str: string, delimiter: string, escapeChar: string): string[] {
  const parts: string[] = [];
  if (!str) return parts;
  let current = '';
  for (let i = 0; i < str.length; i += 1) {
    const c = str[i];
    if (c === delimiter) {
      if (i === 0) continue;
      if (str[i - 1] === escapeChar) {
        current = current.slice(0, -1) + c;
      } else if (current.length > 0) {
        parts.push(current);
        current = '';
      }
    } else {
      current += c;
    }
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

/** Parses an adblock-style rule lexically; null when it is too short to be one. */
export function parseAdblockRule(ruleText: string): AdblockRule | null {
  const tokens = parseRuleTokens(ruleText.trim());
  if (!tokens) return null;
  const rule: AdblockRule = {
    pattern: tokens.pattern,
    allow: tokens.allow,
    options: null,
    hostname: plainHostRuleHostname(tokens.pattern),
  };
  if (tokens.options) {
    const parts = splitEscaped(tokens.options, ',', '\\');
    if (parts.length > 0) {
      rule.options = parts.map((part) => {
        // Only the first `=` separates; text after a second `=` is dropped, as in the reference.
        const pieces = part.split('=', 2);
        return { name: pieces[0], value: pieces[1] ? pieces[1] : null };
      });
    }
  }
  return rule;
}

/** Serialises a parsed adblock rule back to text. */
export function stringifyAdblockRule(rule: AdblockRule): string {
  let text = rule.allow ? `@@${rule.pattern}` : rule.pattern;
  if (rule.options && rule.options.length > 0) {
    text += `$${rule.options.map((o) => (o.value ? `${o.name}=${o.value}` : o.name)).join(',')}`;
  }
  return text;
}
