/**
 * Classification of IP-like adblock patterns (`||1.2.3.4^`, `192.168.1.`, `10.0.*`),
 * as the reference's validators and IP normaliser see them.
 */

export interface IpPattern {
  prefix: '' | '|' | '||';
  octets: string[];
  hasTrailingDot: boolean;
  hasTrailingWildcard: boolean;
  hasCaret: boolean;
  hasCaretPipe: boolean;
  octetCount: number;
  isFullIp: boolean;
  isSubnetWildcard: boolean;
  isAmbiguous3Octet: boolean;
  isTooWide: boolean;
}

const OCTET_RE = /^\d{1,3}$/;

function isOctet(s: string): boolean {
  return OCTET_RE.test(s) && Number(s) <= 255;
}

/** Classifies a pattern (no `@@`, no modifiers); null when it is not IP-like. */
export function classifyIpPattern(pattern: string): IpPattern | null {
  let rest = pattern;
  let prefix: IpPattern['prefix'] = '';
  if (rest.startsWith('||')) {
    prefix = '||';
    rest = rest.slice(2);
  } else if (rest.startsWith('|')) {
    prefix = '|';
    rest = rest.slice(1);
  }
  let hasCaret = false;
  let hasCaretPipe = false;
  if (rest.endsWith('^|')) {
    hasCaret = true;
    hasCaretPipe = true;
    rest = rest.slice(0, -2);
  } else if (rest.endsWith('^')) {
    hasCaret = true;
    rest = rest.slice(0, -1);
  }
  let hasTrailingWildcard = false;
  if (rest.endsWith('.*')) {
    hasTrailingWildcard = true;
    rest = rest.slice(0, -2);
  }
  let hasTrailingDot = false;
  if (rest.endsWith('.')) {
    hasTrailingDot = true;
    rest = rest.slice(0, -1);
  }
  const octets = rest.split('.');
  if (octets.length > 4 || !octets.every(isOctet)) return null;
  const n = octets.length;
  return {
    prefix,
    octets,
    hasTrailingDot,
    hasTrailingWildcard,
    hasCaret,
    hasCaretPipe,
    octetCount: n,
    isFullIp: n === 4 && !hasTrailingDot && !hasTrailingWildcard,
    isSubnetWildcard: n < 4 && (hasTrailingDot || hasTrailingWildcard),
    isAmbiguous3Octet: n === 3 && !hasTrailingDot && !hasTrailingWildcard && !hasCaret,
    isTooWide: n <= 2,
  };
}

/** A cheap gate: IP-like patterns contain only these characters. */
export function mayBeIpPattern(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || c === 46 || c === 124 || c === 94 || c === 42)) return false;
  }
  return true;
}
