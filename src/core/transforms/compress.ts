import type { Transformation } from './types.js';
import { etcHostsHostnames, isEtcHostsRule, isJustDomain, parseAdblockRule } from './rule-text.js';

function adblockHostname(line: string): string | null {
  const rule = parseAdblockRule(line);
  if (rule && rule.hostname && !rule.allow && !(rule.options && rule.options.length > 0)) return rule.hostname;
  return null;
}

/** True when some parent domain of `hostname` (not itself) is in `set`. */
function coveredByParent(hostname: string, set: Set<string>): string | null {
  let dot = hostname.indexOf('.');
  while (dot !== -1) {
    const parent = hostname.substring(dot + 1);
    if (set.has(parent)) return parent;
    dot = hostname.indexOf('.', dot + 1);
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
    const tracked = lines.from !== undefined;
    const text: string[] = [];
    const from: number[] = [];
    const hostnames: (string | null)[] = [];
    const blocked = new Set<string>();

    for (let i = 0; i < src.length; i += 1) {
      const line = src[i];
      let names: string[] | null = null;
      let rewrite = true;
      if (isEtcHostsRule(line)) {
        const found = etcHostsHostnames(line);
        if (found.length > 0) names = found;
      }
      if (!names && isJustDomain(line)) names = [line];
      if (!names) {
        const host = adblockHostname(line);
        if (host !== null) {
          names = [host];
          rewrite = false;
        }
      }
      if (!names) {
        text.push(line);
        hostnames.push(null);
        if (tracked) from.push(lines.from![i]);
        continue;
      }
      for (const name of names) {
        if (blocked.has(name)) {
          if (ctx.reporting) ctx.removed(line, lines.from?.[i], 'duplicate-hostname', `${name} is already blocked by an earlier rule`);
          continue;
        }
        blocked.add(name);
        text.push(rewrite ? `||${name}^` : line);
        hostnames.push(name);
        if (tracked) from.push(lines.from![i]);
      }
    }

    const outText: string[] = [];
    const outFrom: number[] = [];
    for (let i = 0; i < text.length; i += 1) {
      const host = hostnames[i];
      const parent = host === null ? null : coveredByParent(host, blocked);
      if (parent !== null) {
        if (ctx.reporting) ctx.removed(text[i], from[i], 'redundant-hostname', `${host} is covered by ||${parent}^`);
        continue;
      }
      outText.push(text[i]);
      if (tracked) outFrom.push(from[i]);
    }
    return tracked ? { text: outText, from: Float64Array.from(outFrom) } : { text: outText };
  },
};
