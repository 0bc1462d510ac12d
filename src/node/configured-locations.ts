import type { Configuration } from '../core/config/schema.js';
import type { SourceReader } from '../core/load/source-reader.js';
import { resolveHttpLocation } from './safe-reader.js';
import { fromWire, toWire, type WireError } from './wire-error.js';

/**
 * The configured sources' locations as the server's reader resolves them, or the reason it refuses
 * one: sent with a compile that runs in another thread or process, whose reader reads through the
 * server's but cannot call its `resolve` (a saved rule set's `flc-ruleset:<id>` is the server's to know).
 */
export type ConfiguredLocations = [source: string, resolved: { location: string } | { error: WireError }][];

/** Every location a configuration names: its sources and the lists of patterns and allowed names, at both levels. */
export function namedLocations(
  config: Pick<Configuration, 'sources' | 'exclusions_sources' | 'inclusions_sources' | 'allow_sources'>,
): string[] {
  const lists = [config, ...config.sources].flatMap((s) => [
    ...(s.exclusions_sources ?? []),
    ...(s.inclusions_sources ?? []),
    ...(s.allow_sources ?? []),
  ]);
  return [...new Set([...config.sources.map((s) => s.source), ...lists])];
}

export function configuredLocations(config: Configuration, reader: SourceReader): ConfiguredLocations {
  return namedLocations(config).map((source) => {
    try {
      return [source, { location: reader.resolve(source, null) }];
    } catch (e) {
      return [source, { error: toWire(e) }];
    }
  });
}

/**
 * The `resolve` of a compile outside the server's thread: a configured source as the server's
 * reader resolved it (its refusal thrown at the same point of the compile), an include as an
 * HTTP(S) location relative to its list.
 */
export function forwardedResolve(configured: ConfiguredLocations): SourceReader['resolve'] {
  const known = new Map(configured);
  return (ref, base) => {
    const resolved = base === null ? known.get(ref) : undefined;
    if (!resolved) return resolveHttpLocation(ref, base);
    if ('error' in resolved) throw fromWire(resolved.error);
    return resolved.location;
  };
}
