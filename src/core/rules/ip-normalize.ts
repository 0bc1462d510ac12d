import { classifyIpPattern, mayBeIpPattern } from './ip-pattern.js';
import { parseAdblockRule, stringifyAdblockRule } from './rule-text.js';

/**
 * The canonical form of an IP rule for the AllowIp validators, or null when the rule
 * stays as it is: full addresses become `||a.b.c.d^`, prefix-less 3-octet subnets
 * (`192.168.1.`, `192.168.1.*`) gain `||`. Anything else is left for the validator.
 */
export function normalizeIpRule(ruleText: string): string | null {
  if (!ruleText || ruleText.startsWith('!') || ruleText.startsWith('#') || ruleText.trim() === '') return null;
  const rule = parseAdblockRule(ruleText);
  if (!rule || !mayBeIpPattern(rule.pattern)) return null;
  const ip = classifyIpPattern(rule.pattern);
  if (!ip) return null;
  const address = ip.octets.join('.');
  if (ip.octetCount === 3) {
    if (ip.hasCaret || !(ip.hasTrailingDot || ip.hasTrailingWildcard) || ip.prefix === '||') return null;
    rule.pattern = `||${address}${ip.hasTrailingWildcard ? '.*' : '.'}`;
    return stringifyAdblockRule(rule);
  }
  if (!ip.isFullIp || (ip.prefix === '||' && ip.hasCaret && !ip.hasCaretPipe)) return null;
  rule.pattern = `||${address}^`;
  return stringifyAdblockRule(rule);
}
