import { SourceRefusedError } from '../../core/errors/index.js';
import type { ReadOptions } from '../../core/load/source-reader.js';
import type { AppDeps, ReaderFactory } from '../deps.js';
import type { Store } from '../store/store.js';
import type { Configuration } from '../../core/config/schema.js';
import { namedLocations } from '../../node/configured-locations.js';

/** A configuration source naming a saved rule set: `flc-ruleset:<id>`. */
export const RULE_SET_SCHEME = 'flc-ruleset:';

export const isRuleSetSource = (location: string) => location.toLowerCase().startsWith(RULE_SET_SCHEME);

/**
 * Whether a configuration names a saved rule set anywhere (a source, or a list of exclusions,
 * inclusions or allowed names, at either level): its compile then depends on who asks. A list's
 * include cannot reach one (an include is held to its list's origin), so the configuration alone tells.
 */
export function usesRuleSets(config: Configuration): boolean {
  return namedLocations(config).some(isRuleSetSource);
}

/**
 * Readers that also read `flc-ruleset:<id>` sources: the rules of that saved rule set, only when
 * `ownerId` owns it. Anything else goes to the server's own (safe) reader. An include inside a
 * rule set resolves as the base reader resolves it (never relative to the rule set).
 */
export function ruleSetReaders(base: ReaderFactory, store: Store, ownerId: string | null): ReaderFactory {
  return (hooks) => {
    const reader = base(hooks);
    return {
      resolve: (ref, from) =>
        isRuleSetSource(ref) ? ref : reader.resolve(ref, from && !isRuleSetSource(from) ? from : null),
      read: async (location, signal, options) => {
        if (!isRuleSetSource(location)) return reader.read(location, signal, options);
        const id = location.slice(RULE_SET_SCHEME.length);
        const ruleSet = ownerId ? await store.ruleSet(id) : null;
        // One answer for an unknown id and another user's: the id's existence is not told.
        if (!ruleSet || ruleSet.ownerId !== ownerId)
          throw new SourceRefusedError(location, 'no saved rule set of yours has this id');
        return ruleSet.rules.join('\n');
      },
      ...(reader.readBytes
        ? {
            readBytes: (location: string, signal?: AbortSignal, options?: ReadOptions) =>
              isRuleSetSource(location) ? Promise.resolve(null) : reader.readBytes!(location, signal, options),
          }
        : {}),
      close: () => reader.close(),
    };
  };
}

/** The app's dependencies for one caller's compile: its reader knows that caller's rule sets. */
export function depsForCaller(deps: AppDeps, userId: string | null): AppDeps {
  return { ...deps, makeReader: ruleSetReaders(deps.makeReader, deps.store, userId) };
}
