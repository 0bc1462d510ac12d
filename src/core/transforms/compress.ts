import type { Transformation } from './types.js';
import { type Drop, keepWhere } from './lines.js';
import { etcHostsHostnames, isEtcHostsRule, isJustDomain, parseAdblockRule } from '../rules/rule-text.js';

/** The nearest parent domain of `hostname` in `blocked`, or null. */
function blockedParent(hostname: string, blocked: Set<string>): string | null {
  for (let dot = hostname.indexOf('.'); dot !== -1; dot = hostname.indexOf('.', dot + 1)) {
    const parent = hostname.substring(dot + 1);
    if (parent.length > 0 && blocked.has(parent)) return parent;
  }
  return null;
}

/** Why Compress removes a line: a hostname blocked already, or one whose parent domain is blocked. */
export const duplicateHost = (name: string): Drop => [
  'duplicate-hostname',
  `${name} is already blocked by an earlier rule`,
];
export const redundantHost = (host: string, parent: string): Drop => [
  'redundant-hostname',
  `${host} is covered by ||${parent}^`,
];

/** Hostnames of a line that is not a plain `||hostname^` rule, and whether its text becomes `||name^`. */
export function otherCompressible(line: string): { names: string[]; rewrite: boolean } | null {
  if (isEtcHostsRule(line)) {
    const names = etcHostsHostnames(line);
    // The reference throws on a hosts line without names; we treat it as a plain rule.
    if (names.length > 0) return { names, rewrite: true };
  }
  if (isJustDomain(line)) return { names: [line], rewrite: true };
  const rule = parseAdblockRule(line);
  if (rule?.hostname && !rule.allow && !(rule.options && rule.options.length > 0)) {
    return { names: [rule.hostname], rewrite: false };
  }
  return null;
}

/**
 * Converts hosts lines and bare domains to `||hostname^`, keeps the first rule per
 * hostname and drops rules whose parent domain is blocked too.
 */
export const compress: Transformation = {
  name: 'Compress',
  summary: 'converts hosts syntax to adblock syntax and removes rules covered by a parent domain',
  apply(lines, ctx) {
    const src = lines.text;
    const text: string[] = [];
    const from: number[] = [];
    const hostnames: (string | null)[] = [];
    const blocked = new Set<string>();
    const add = (rule: string, hostname: string | null, i: number) => {
      text.push(rule);
      hostnames.push(hostname);
      if (lines.from) from.push(lines.from[i]);
    };
    for (let i = 0; i < src.length; i += 1) {
      const found = otherCompressible(src[i]);
      if (!found) add(src[i], null, i);
      // The first rule per hostname stays; later ones are duplicates.
      for (const name of found?.names ?? []) {
        if (!blocked.has(name)) {
          blocked.add(name);
          add(found!.rewrite ? `||${name}^` : src[i], name, i);
        } else if (ctx.reporting) {
          ctx.removed(src[i], lines.from?.[i], ...duplicateHost(name));
        }
      }
    }
    const keep = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i += 1) {
      const host = hostnames[i];
      const parent = host === null ? null : blockedParent(host, blocked);
      if (parent === null) keep[i] = 1;
      else if (ctx.reporting) ctx.removed(text[i], from[i], ...redundantHost(host!, parent));
    }
    return keepWhere(lines.from ? { text, from: Float64Array.from(from) } : { text }, keep);
  },
};
