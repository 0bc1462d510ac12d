// What a compile publishes, from its flags, its configuration's `publish`, `onSourceError` and
// `maxStale` keys (flags win), and the environment: checked before any download.
import { basename, dirname, join, resolve } from 'node:path';
import type { Configuration } from '../core/config/schema.js';
import { InputError } from '../core/errors/index.js';
import { parseAge } from '../core/publish/duration.js';
import { PATCH_NAME_RE } from '../core/config/publish-schema.js';
import type { OutputTarget } from '../node/atomic-write.js';
import type { DnsCheckOptions } from '../node/publish/dns-check.js';
import type { PublishPlan } from '../node/publish/publish.js';
import type { CompileFlags } from './compile-flags.js';

// AdGuard's builder's defaults: an hour's expiry, patches kept a week.
const DEFAULT_EXPIRY = { h: 1, m: 60, s: 3600 } as const;
const DEFAULT_KEEP = '7d';
const DNS_DEFAULTS = { concurrency: 20, timeoutS: 5, recheck: '7d', budget: '10m' } as const;

export interface PublishSettings {
  /** Null when the run only writes its list. */
  plan: PublishPlan | null;
  maxStaleMs?: number;
  /** The dead-domain check, or null; `onWarning` is the caller's. */
  dns: Omit<DnsCheckOptions, 'onWarning'> | null;
  /** Keep every download as a last good copy (`onSourceError: stale`). */
  keepLastGood: boolean;
}

function ageOption(name: string, text: string | number | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = typeof text === 'number' ? text * 1000 : parseAge(text);
  if (ms === null || !(ms > 0))
    throw new InputError([`${name} ${text}: not an age (write 90s, 30m, 36h, 7d or seconds)`]);
  return ms;
}

export function publishSettings(
  flags: CompileFlags,
  config: Configuration,
  list: OutputTarget,
  env: NodeJS.ProcessEnv,
  cacheDir: string | null,
): PublishSettings {
  const pub = config.publish ?? {};
  const file = list.kind === 'file' ? list.path : null;
  const needFile = (what: string) => {
    if (file === null) throw new InputError([`${what} needs -o FILE: it compares with and replaces the list there`]);
  };
  let diff: PublishPlan['diff'] = null;
  if (flags['diff-patches'] !== undefined) {
    needFile('--diff-patches');
    const format = flags.format ?? config.format ?? 'adblock';
    if (format !== 'adblock')
      throw new InputError([`--diff-patches is for the adblock format; this compile writes ${format}`]);
    const d = pub.diffPatches ?? {};
    const resolution = flags['diff-resolution'] ?? d.resolution ?? 'h';
    const name = flags['diff-name'] ?? d.name ?? defaultPatchName(file!);
    if (!PATCH_NAME_RE.test(name)) {
      throw new InputError([`--diff-name ${name}: a patch name is 1-64 letters, digits, "_" and "."`]);
    }
    diff = {
      dir: flags['diff-patches'],
      // The tag is made from the paths as given (the output's are resolved for writing).
      listDir: dirname(resolve(flags.output!)),
      name,
      resolution,
      expiry: flags['diff-expiry'] ?? d.expiry ?? DEFAULT_EXPIRY[resolution],
      keepSeconds: ageOption('--diff-keep', flags['diff-keep'] ?? d.keep ?? DEFAULT_KEEP)! / 1000,
      checksum: flags['diff-checksum'] ?? d.checksum ?? false,
    };
  }
  if (flags['max-shrink'] !== undefined) needFile('--max-shrink');
  if (flags['min-rules'] !== undefined) needFile('--min-rules');
  // The configuration's bounds guard what is written to a file; a list on stdout replaces nothing.
  const bounds =
    file === null
      ? {}
      : { maxShrinkPercent: flags['max-shrink'] ?? pub.maxShrink, minRules: flags['min-rules'] ?? pub.minRules };
  const guard = bounds.maxShrinkPercent !== undefined || bounds.minRules !== undefined;
  const compareTo = flags['compare-to'] ?? null;
  const summaryFile = env.GITHUB_STEP_SUMMARY ? env.GITHUB_STEP_SUMMARY : null;
  const wanted = diff !== null || guard || compareTo !== null;
  const plan: PublishPlan | null = wanted ? { output: file, diff, bounds, compareTo, stepSummary: summaryFile } : null;

  const stale = config.onSourceError === 'stale';
  const maxStaleMs = ageOption('--max-stale', flags['max-stale'] ?? config.maxStale);
  if (maxStaleMs !== undefined && !stale) {
    throw new InputError(['--max-stale (maxStale) bounds onSourceError "stale"; this compile does not use it']);
  }

  const configDns = pub.checkDns;
  const checkDns = flags['check-dns'] ?? (configDns !== undefined && configDns !== false);
  let dns: PublishSettings['dns'] = null;
  if (checkDns) {
    const servers = flags['dns-server']?.flatMap((s) => s.split(',')).map((s) => s.trim()) ?? [];
    const recheck = flags['dns-recheck'] ?? (typeof configDns === 'object' ? configDns.recheckAfter : undefined);
    const budget = flags['dns-budget'] ?? (typeof configDns === 'object' ? configDns.budget : undefined);
    dns = {
      servers,
      concurrency: flags['dns-concurrency'] ?? DNS_DEFAULTS.concurrency,
      timeoutMs: (flags['dns-timeout'] ?? DNS_DEFAULTS.timeoutS) * 1000,
      recheckMs: ageOption('--dns-recheck', recheck ?? DNS_DEFAULTS.recheck)!,
      budgetMs: ageOption('--dns-budget', budget ?? DNS_DEFAULTS.budget)!,
      cacheFile: cacheDir === null ? null : join(cacheDir, 'dns-answers.json'),
    };
  }
  return { plan, maxStaleMs, dns, keepLastGood: stale };
}

/** The default patch name: the output's file name without its extension, in the allowed characters. */
function defaultPatchName(output: string): string {
  const stem = basename(output).replace(/\.[^.]*$/, '');
  const name = stem.replace(/[^a-zA-Z0-9_.]/g, '_').slice(0, 64);
  return name.length > 0 ? name : 'list';
}
