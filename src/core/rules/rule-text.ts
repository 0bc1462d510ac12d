/**
 * Text-level rule helpers with the exact semantics of the reference compiler
 * (@adguard/hostlist-compiler 2.1.1). They are deliberately lexical, not AGTree
 * based: the reference decides by these tests, and identical output depends on them.
 */

/** Longest label, bare domain (`isJustDomain`) and clean name (`cleanHostname`); the kernel reads them too. */
export const NAME_LIMITS = { LABEL_MAX: 63, JUST_DOMAIN_MAX: 255, CLEAN_NAME_MAX: 253 } as const;
const DOMAIN_LABEL = `[0-9A-Za-z](?:(?:[0-9A-Za-z]|-){0,${NAME_LIMITS.LABEL_MAX - 2}}[0-9A-Za-z])?`;
const DOMAIN_RE = new RegExp(`^(?=.{1,${NAME_LIMITS.JUST_DOMAIN_MAX}}$)${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})*\\.?$`);
/** The characters of a hosts line's address. */
const ADDRESS_CHAR = '[a-f0-9.:\\][]';
const ETC_HOSTS_RE = new RegExp(`^(${ADDRESS_CHAR}+)(%[a-z0-9]+)?\\s+([^#]+)(#.*)?$`);
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

/**
 * What a byte is to the WebAssembly kernel's shape checks, in one table (the kernel reads these
 * numbers too: engine/kernel-constants.ts). The classes are ordered so that tests read as ranges:
 * `>= LOWER` is `[a-zA-Z0-9]`, `HYPHEN..LOWER` is `[a-z0-9-.]`, `<= NAME_STOP` ends a name.
 */
export const BYTE_CLASSES = {
  /** What JavaScript's `\s` matches (the non-ASCII ones are NAME_STOP). */
  SPACE: 0,
  /** `#` or a non-ASCII byte: with SPACE, ends a simple hosts line's name. */
  NAME_STOP: 1,
  /** Any other byte that is none of the below. */
  OTHER: 2,
  HYPHEN: 3,
  DOT: 4,
  /** `[a-z0-9]`. */
  LOWER: 5,
  /** `[A-Z]`. */
  UPPER: 6,
} as const;
const { SPACE, NAME_STOP, OTHER, HYPHEN, DOT, LOWER, UPPER } = BYTE_CLASSES;
const ADDRESS_CHAR_RE = new RegExp(`^${ADDRESS_CHAR}$`);
/** ADDRESS_CHAR as a byte table (`isEtcHostsRule`'s gate, the kernel). */
export const ADDRESS_CODE = new Uint8Array(256).map((_, c) => (ADDRESS_CHAR_RE.test(String.fromCharCode(c)) ? 1 : 0));

/**
 * Each byte's class for the WebAssembly kernel's shape checks (kernel.ts copies it into its
 * memory): whitespace, what else ends a hostname, hyphen, dot, `[a-z0-9]`, `[A-Z]`, anything else.
 */
export const BYTE_CLASS = new Uint8Array(256).map((_, c) => {
  if (c < 128 && isWhitespaceCode(c)) return SPACE;
  if (c === 35 || c >= 128) return NAME_STOP;
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
  return line.includes('.') && DOMAIN_RE.test(line);
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
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 46)) return null;
  }
  return line.substring(2, n - 1);
}

/** An /etc/hosts line: an address-like token, whitespace, then names. */
export function isEtcHostsRule(line: string): boolean {
  // Cheap first-character gate: the address token only holds [a-f0-9.:[\]].
  if (ADDRESS_CODE[line.charCodeAt(0)] !== 1) return false;
  return ETC_HOSTS_RE.test(line);
}

/** True for the ASCII characters JavaScript's `\s` matches (the byte scanners leave the others to text). */
export function isWhitespaceCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/**
 * The hostnames of an /etc/hosts line (everything after the address, before `#`).
 * Returns an empty array when the line carries no name.
 */
export function etcHostsHostnames(line: string): string[] {
  let rule = line.trim();
  const hash = rule.indexOf('#');
  if (hash > 0) rule = rule.substring(0, hash);
  return rule.trim().split(/\s+/).slice(1);
}

/** True when the text holds any non-ASCII character. */
export function containsNonAscii(text: string): boolean {
  return NON_ASCII_RE.test(text);
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

/**
 * Parses an adblock-style rule lexically: pattern and modifier text split at the last unescaped
 * `$`. Null for a rule too short to have a pattern (empty, or a lone `@@`).
 */
export function parseAdblockRule(ruleText: string): AdblockRule | null {
  const text = ruleText.trim();
  const allow = text.startsWith('@@');
  const start = allow ? 2 : 0;
  if (text.length <= start) return null;
  let pattern = text.substring(start);
  let options: string | null = null;
  if (!(pattern.startsWith('/') && pattern.endsWith('/') && !pattern.includes('replace='))) {
    for (let i = text.length - 1; i >= start; i -= 1) {
      if (text.charCodeAt(i) === 36 /* $ */ && !((i > start && text.charCodeAt(i - 1) === 92) /* \ */)) {
        pattern = text.substring(start, i);
        options = text.substring(i + 1);
        break;
      }
    }
  }
  const rule: AdblockRule = { pattern, allow, options: null, hostname: plainHostRuleHostname(pattern) };
  if (options) {
    const parts = splitEscaped(options, ',', '\\');
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
