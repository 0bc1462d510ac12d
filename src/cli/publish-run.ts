// The publishing side of a compile run (compile-run.ts): its settings checked before any
// download, the compile options they add (stale copies, the dead-domain check), and the list
// published once compiled.
import type { Configuration } from '../core/config/schema.js';
import type { CompileOptions, CompileResult } from '../core/pipeline/compile.js';
import type { EventSink } from '../core/pipeline/events.js';
import type { OutputTarget } from '../node/atomic-write.js';
import type { Changes } from '../node/publish/publish.js';
import type { CompileFlags } from './compile-flags.js';
import { publishSettings } from './publish-settings.js';

export interface Published {
  /** The list was written (or deliberately left as it was); the caller writes nothing. */
  handled: boolean;
  /** Only the header would have changed: nothing was written. */
  unchanged: boolean;
  changes: Changes | null;
  /** Lines the written list has beyond the compiled text (the `Diff-Path` header). */
  headerLines: number;
}

const STALE_AGE_RE = /\(([^()]*) old\)$/;

export async function preparePublishing(
  flags: CompileFlags,
  config: Configuration,
  list: OutputTarget,
  cacheDir: string | null,
  note: (line: string) => void,
) {
  const settings = publishSettings(flags, config, list, process.env, cacheDir);
  let deadRemoved = 0;
  const compileOptions: Pick<CompileOptions, 'maxStaleMs' | 'deadDomains'> = { maxStaleMs: settings.maxStaleMs };
  if (settings.dns) {
    // Loaded only for a check: the resolver's modules cost every other compile start-up time.
    const { checkDnsServers, deadDomainChecker } = await import('../node/publish/dns-check.js');
    checkDnsServers(settings.dns.servers);
    compileOptions.deadDomains = deadDomainChecker({ ...settings.dns, onWarning: (m) => note(`Warning: ${m}`) });
  }
  return {
    keepLastGood: settings.keepLastGood,
    compileOptions,
    /** The progress sink, counting what the dead-domain check removes on the way. */
    watch(sink: EventSink): EventSink {
      return (event) => {
        if (event.type === 'transformation:complete' && event.name === 'Dead domains') {
          deadRemoved += event.inputCount - event.outputCount;
        }
        sink(event);
      };
    },
    async publish(result: CompileResult): Promise<Published> {
      if (settings.plan === null) return { handled: false, unchanged: false, changes: null, headerLines: 0 };
      const { publish } = await import('../node/publish/publish.js');
      const stale = result.diagnostics
        .filter((d) => d.code === 'source-stale')
        .map((d) => ({ source: d.source ?? '', age: STALE_AGE_RE.exec(d.message)?.[1] ?? '?' }));
      const text = Buffer.from(result.bytes()).toString('utf8');
      const out = await publish(settings.plan, text, { stale, deadDomains: deadRemoved }, new Date(), note);
      const handled = settings.plan.output !== null;
      return { handled, unchanged: handled && !out.written, changes: out.changes, headerLines: out.headerLines };
    },
  };
}
