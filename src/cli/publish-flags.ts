// `flc compile`'s publishing flags (docs/configuration.md, "Publishing from CI"): differential
// updates, the shrink guard, stale sources, the change summary and the dead-domain check.
import { Flags } from '@oclif/core';

export const publishFlags = {
  'diff-patches': Flags.string({
    helpValue: 'DIR',
    description: 'write differential-update patches (AdGuard format) to DIR and a "! Diff-Path:" header; needs -o FILE',
  }),
  'diff-name': Flags.string({ description: 'patch name (default: the output file name without extension)' }),
  'diff-resolution': Flags.option({
    options: ['h', 'm', 's'] as const,
    description: 'time unit of the patch names and expiry: hours (default), minutes, seconds',
  })(),
  'diff-expiry': Flags.integer({
    min: 1,
    description:
      'how long a version stays current before clients ask for its patch, in --diff-resolution units (default: 1 hour)',
  }),
  'diff-keep': Flags.string({ helpValue: 'AGE', description: 'prune patches older than AGE, e.g. 7d (the default)' }),
  'diff-checksum': Flags.boolean({ description: 'put a SHA-1 checksum of the new list in each patch' }),
  'max-shrink': Flags.custom<number>({
    helpValue: 'PERCENT',
    description: 'refuse (exit 1, write nothing) a list more than PERCENT smaller than the previous build',
    parse: async (input) => {
      const n = Number(input);
      if (!(input.trim() !== '' && n >= 0 && n <= 100))
        throw new Error(`--max-shrink must be a percentage from 0 to 100, got "${input}"`);
      return n;
    },
  })(),
  'min-rules': Flags.integer({
    min: 0,
    helpValue: 'N',
    description: 'refuse (exit 1, write nothing) a list with fewer than N rules',
  }),
  'max-stale': Flags.string({
    helpValue: 'AGE',
    description: 'with onSourceError "stale": the oldest cached copy used, e.g. 36h, 7d (default: any)',
  }),
  'compare-to': Flags.string({
    helpValue: 'FILE',
    description:
      'print the rules added and removed since FILE (default: the previous -o FILE), per source and in total',
  }),
  'check-dns': Flags.boolean({
    allowNo: true,
    description: 'remove rules whose domain does not exist (NXDOMAIN); timeouts and failures remove nothing',
  }),
  'dns-server': Flags.string({
    multiple: true,
    helpValue: 'HOST:PORT',
    description: "DNS server of --check-dns (an IP address, optional port); repeatable (default: the system's)",
  }),
  'dns-concurrency': Flags.integer({ min: 1, description: '--check-dns questions in flight at once (default 20)' }),
  'dns-timeout': Flags.custom<number>({
    description: '--check-dns timeout per question, seconds (default 5)',
    parse: async (input) => {
      const n = Number(input);
      if (!(n > 0)) throw new Error(`--dns-timeout must be a positive number of seconds, got "${input}"`);
      return n;
    },
  })(),
  'dns-recheck': Flags.string({
    helpValue: 'AGE',
    description: 'ask again about names answered longer ago than AGE (default 7d)',
  }),
  'dns-budget': Flags.string({
    helpValue: 'AGE',
    description: '--check-dns asks no more questions after AGE; the names not asked keep their rules (default 10m)',
  }),
};
