// The dead-domain check's resolver: Node's DNS resolver (c-ares) pointed at the servers given,
// a limit on questions in flight, a time budget for all of them, and a file of answers that spares
// asking again before the recheck age. Only NXDOMAIN (c-ares' ENOTFOUND) makes a name dead; an
// answer without records is a name that exists, and a timeout or any other failure leaves the
// name's rules in the list. Failures are remembered for a day: names under servers that never
// answer (anyone's to set up) cost their timeout once a day, not every run.
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { readFile } from 'node:fs/promises';
import pLimit from 'p-limit';
import { InputError } from '../../core/errors/index.js';
import { writeFileAtomic } from '../atomic-write.js';

export interface DnsCheckOptions {
  /** `HOST:PORT` or `HOST` (an IP address, `[v6]:port` for IPv6 with a port); the system's servers when empty. */
  servers: string[];
  concurrency: number;
  timeoutMs: number;
  /** Answers younger than this are taken from `cacheFile` without asking. */
  recheckMs: number;
  /** No question is asked after this long from the start; the names not asked keep their rules. */
  budgetMs: number;
  /** The file of answers, or null for none. */
  cacheFile: string | null;
  /** Told once, at the end, about the names that could not be checked. */
  onWarning: (message: string) => void;
}

/**
 * A failed question is asked again after a day at most: long enough that names whose servers never
 * answer cost little, short enough that one run during an outage does not turn the check off.
 */
const FAILED_RECHECK_MS = 86_400_000;

interface Answer {
  dead: boolean;
  at: number;
  /** The question failed (a timeout, say): the name's rules stay until it is asked again. */
  failed?: true;
}

/** Checks that each `--dns-server` is an address with an optional port, as the resolver takes it. */
export function checkDnsServers(servers: readonly string[]): void {
  for (const server of servers) {
    const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(server);
    const v4 = /^([^:]+)(?::(\d+))?$/.exec(server);
    const host = v6?.[1] ?? v4?.[1] ?? server;
    const port = v6?.[2] ?? v4?.[2];
    const bad = isIP(host) === 0 || (port !== undefined && (Number(port) < 1 || Number(port) > 65_535));
    if (bad)
      throw new InputError([`--dns-server ${server}: give an IP address with an optional port, e.g. 1.1.1.1:53`]);
  }
}

async function readAnswers(file: string | null): Promise<Map<string, Answer>> {
  if (file === null) return new Map();
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as Record<string, Answer>;
    return new Map(Object.entries(data));
  } catch {
    // No file yet, or one flc cannot read: every name is asked again.
    return new Map();
  }
}

/** The check `compile` calls with the names of the list's rules; resolves to the dead ones. */
export function deadDomainChecker(opts: DnsCheckOptions): (names: string[]) => Promise<ReadonlySet<string>> {
  return async (names) => {
    const resolver = new Resolver({ timeout: opts.timeoutMs, tries: 1 });
    if (opts.servers.length > 0) resolver.setServers(opts.servers);
    const answers = await readAnswers(opts.cacheFile);
    const now = Date.now();
    const limit = pLimit(Math.max(1, opts.concurrency));
    const dead = new Set<string>();
    const failures = new Map<string, number>();
    let unasked = 0;
    await Promise.all(
      names.map((name) =>
        limit(async () => {
          const known = answers.get(name);
          const age = known ? now - known.at : -1;
          // An answer from the future (a clock that ran ahead) is asked again.
          if (
            known &&
            age >= 0 &&
            age < (known.failed ? Math.min(opts.recheckMs, FAILED_RECHECK_MS) : opts.recheckMs)
          ) {
            if (known.dead) dead.add(name);
            return;
          }
          if (Date.now() - now >= opts.budgetMs) {
            unasked += 1;
            return;
          }
          try {
            await resolver.resolve4(name);
            answers.set(name, { dead: false, at: Date.now() });
          } catch (e) {
            const code = (e as NodeJS.ErrnoException).code ?? 'error';
            if (code === 'ENOTFOUND') {
              dead.add(name);
              answers.set(name, { dead: true, at: Date.now() });
            } else if (code === 'ENODATA') {
              answers.set(name, { dead: false, at: Date.now() });
            } else {
              failures.set(code, (failures.get(code) ?? 0) + 1);
              answers.set(name, { dead: false, at: Date.now(), failed: true });
            }
          }
        }),
      ),
    );
    resolver.cancel();
    if (opts.cacheFile !== null) {
      // Answers past the recheck age would be asked again anyway: dropped, the file holds only the
      // names of recent lists, not every name a source ever listed.
      const end = Date.now();
      const recent = [...answers].filter(([, a]) => a.at <= end && now - a.at < opts.recheckMs);
      await writeFileAtomic(opts.cacheFile, JSON.stringify(Object.fromEntries(recent)));
    }
    if (failures.size > 0) {
      const count = [...failures.values()].reduce((a, b) => a + b, 0);
      const why = [...failures].map(([code, n]) => `${n} ${code}`).join(', ');
      opts.onWarning(
        `dead-domain check: ${count} name(s) could not be checked (${why}); their rules stay in the list, ` +
          'and they are asked again after a day',
      );
    }
    if (unasked > 0) {
      opts.onWarning(
        `dead-domain check: its time budget (${opts.budgetMs / 1000} s) ran out with ${unasked} name(s) not asked; ` +
          'their rules stay in the list, and a later run goes on with them',
      );
    }
    return dead;
  };
}
