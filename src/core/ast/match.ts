import { RegExpUtils, type AnyRule, type Modifier } from '@adguard/agtree';
import { domainToAscii } from '../transforms/convert-to-ascii.js';

/** Modifiers whose effect depends on more than the request's hostname. */
const CONTEXT_MODIFIERS = new Set([
  'domain',
  'from',
  'to',
  'denyallow',
  'third-party',
  '3p',
  'first-party',
  '1p',
  'strict-third-party',
  'strict3p',
  'strict-first-party',
  'strict1p',
  'script',
  'image',
  'stylesheet',
  'css',
  'object',
  'xmlhttprequest',
  'xhr',
  'subdocument',
  'frame',
  'ping',
  'media',
  'font',
  'websocket',
  'webrtc',
  'other',
  'popup',
  'popunder',
  'document',
  'doc',
  'all',
  'client',
  'ctag',
  'app',
  'method',
  'header',
  'dnstype',
  'urlskip',
  'ipaddress',
]);

export interface MatchOutcome {
  /** Absent when the rule type carries too little information for a hostname match. */
  matchResult?: boolean;
  /** For rules that match: whether it is an exception (allow) rule. */
  exception?: boolean;
  /** Modifiers whose condition the hostname alone cannot decide. */
  dependsOn?: string[];
}

const HOST_PATTERN_RE = /^\|\|([^/^*|$]+)\^?\|?$/;

/**
 * Matches a rule against the hostname of a URL, and the hostname only: hosts rules by
 * exact name, `||host^` by the host or a subdomain, other patterns through AGTree's
 * pattern-to-regexp on `https://<host>/`. Cosmetic, scriptlet and comment rules get no
 * result. Context-dependent modifiers are reported instead of guessed.
 */
export function matchHostname(ast: AnyRule, hostname: string): MatchOutcome {
  // Once the tree says no regex is needed, the branches below run none: the same test decides both.
  const regex = hostnameMatchNeedsRegex(ast);
  if (ast.type === 'HostRule') {
    const names = ast.hostnames.children.map((v) => (domainToAscii(v.value) || v.value).toLowerCase());
    return { matchResult: names.includes(hostname), exception: false };
  }
  if (ast.type !== 'NetworkRule') return {};
  const modifiers = (ast.modifiers?.children ?? []) as Modifier[];
  const matchCase = modifiers.some((m) => m.name.value === 'match-case' && !m.exception);
  const dependsOn = [...new Set(modifiers.map((m) => m.name.value).filter((n) => CONTEXT_MODIFIERS.has(n)))];
  const pattern = ast.pattern.value;
  const url = `https://${hostname}/`;
  let matched: boolean;
  const host = regex ? null : HOST_PATTERN_RE.exec(pattern);
  if (host) {
    const ascii = domainToAscii(host[1]) || host[1];
    // URL hostnames are lowercase, so a $match-case pattern with capitals never matches.
    const target = matchCase && /[A-Z]/.test(host[1]) ? host[1] : ascii.toLowerCase();
    matched = hostname === target || hostname.endsWith(`.${target}`);
  } else if (!regex) {
    matched = true;
  } else {
    try {
      matched = new RegExp(RegExpUtils.patternToRegexp(pattern), matchCase ? '' : 'i').test(url);
    } catch {
      matched = false; // a broken regex matches nothing; strict mode reports it
    }
  }
  return { matchResult: matched, exception: ast.exception, ...(dependsOn.length > 0 ? { dependsOn } : {}) };
}

/**
 * Whether matching the parsed rule `ast` against a hostname runs a regular expression: a network
 * rule whose pattern (as AGTree parsed it, modifiers apart) is neither empty nor `||host^`. Judged
 * on the tree, never on the text: the text's first `$` need not be where the modifiers start.
 */
export function hostnameMatchNeedsRegex(ast: AnyRule): boolean {
  if (ast.type !== 'NetworkRule') return false;
  const pattern = ast.pattern.value;
  return pattern !== '' && !HOST_PATTERN_RE.test(pattern);
}
