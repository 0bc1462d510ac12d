import type { Transformation } from './types.js';
import { withTexts } from './lines.js';
import { containsNonAscii, isComment } from '../rules/rule-text.js';

const DOMAIN_PART_RE = /(\*\.|)([^\s^$|=]+(?:\.[^\s^$|=]+)+)/g;

/**
 * Punycode of a domain, or '' when it is not a valid host. Uses the WHATWG URL
 * hostname setter, which is what Node's `url.domainToASCII` does, so the core
 * needs no Node import.
 */
export function domainToAscii(domain: string): string {
  const url = new URL('ws://x');
  url.hostname = domain;
  return url.hostname === 'x' && domain !== 'x' ? '' : url.hostname;
}

/** Converts each domain-looking part with non-ASCII characters to punycode. */
export function toAscii(line: string): string {
  if (isComment(line) || line.length === 0 || !containsNonAscii(line)) return line;
  return line.replace(DOMAIN_PART_RE, (match, wildcard: string, domain: string) =>
    containsNonAscii(domain) ? wildcard + domainToAscii(domain) : match,
  );
}

export const convertToAscii: Transformation = {
  name: 'ConvertToAscii',
  summary: 'converts non-ASCII domain names to punycode',
  apply(lines) {
    return withTexts(lines, lines.text.map(toAscii));
  },
};
