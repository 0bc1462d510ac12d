import type { Lines } from '../transforms/lines.js';
import type { TransformContext } from '../transforms/types.js';
import { etcHostsHostnames, isComment, isEtcHostsRule, isJustDomain, parseAdblockRule } from '../rules/rule-text.js';

export const OUTPUT_FORMATS = ['adblock', 'hosts', 'domains'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const BLOCK_ADDRESS = '0.0.0.0';

/** Hostnames a line blocks outright, or null when hosts/domains syntax cannot say it. */
function blockedHostnames(line: string): string[] | null {
  if (isEtcHostsRule(line)) {
    const names = etcHostsHostnames(line);
    return names.length > 0 ? names : null;
  }
  if (isJustDomain(line)) return [line.endsWith('.') ? line.slice(0, -1) : line];
  const rule = parseAdblockRule(line);
  if (!rule || rule.allow || (rule.options && rule.options.length > 0)) return null;
  const m = /^\|\|([a-z0-9-.]+)\^\|?$/i.exec(rule.pattern);
  return m ? [m[1].toLowerCase()] : null;
}

/**
 * Rewrites an adblock-syntax list as a hosts file (`0.0.0.0 host`) or a plain domain
 * list. Comments become `#` comments; rules these formats cannot express are dropped
 * and recorded with the reason.
 */
export function formatLines(lines: Lines, format: 'hosts' | 'domains', ctx: TransformContext) {
  let dropped = 0;
  const text: string[] = [];
  const from: number[] = [];
  lines.text.forEach((line, i) => {
    let out: string[] | null;
    if (line.trim().length === 0) out = [line];
    else if (isComment(line)) out = [line.startsWith('!') ? `#${line.substring(1)}` : line];
    else {
      const names = blockedHostnames(line);
      out = names ? names.map((n) => (format === 'hosts' ? `${BLOCK_ADDRESS} ${n}` : n)) : null;
    }
    if (!out) {
      dropped += 1;
      if (ctx.reporting)
        ctx.removed(line, lines.from?.[i], 'unsupported-in-format', `cannot be expressed in ${format} format`);
      return;
    }
    for (const o of out) {
      text.push(o);
      if (lines.from) from.push(lines.from[i]);
    }
  });
  return { lines: lines.from ? { text, from: Float64Array.from(from) } : { text }, dropped };
}
