import { quickConfiguration } from '../core/config/parse.js';
import { ConfigError, InputError } from '../core/errors/index.js';
import type { OutputFormat } from '../core/output/formats.js';
import { hostsAddresses } from '../core/output/format.js';
import { discoverConfig, loadConfigFile, type LoadedConfig } from '../node/config-loader.js';
import { defaultCacheDir } from '../node/cache-dir.js';
import { DEFAULT_HTTP, userAgentOf } from '../node/source-reader.js';
import type { CompileFlags } from './compile-flags.js';

/**
 * The configuration a compile run uses: -i quick mode, -c file, or discovery. `file` is set for a
 * discovered configuration only, whose relative paths resolve against its own folder; the others'
 * resolve against the working directory, as the reference resolves them (docs/compatibility.md).
 */
export async function loadJobConfig(
  flags: CompileFlags,
  cwd: string,
  missing = 'no configuration: pass -c FILE or -i SOURCE, or add flc.config.json here',
): Promise<Partial<LoadedConfig> & Omit<LoadedConfig, 'file'>> {
  let loaded: Partial<LoadedConfig> & Omit<LoadedConfig, 'file'>;
  if (flags.input?.length) {
    loaded = { config: quickConfiguration(flags.input, flags['input-type'] as 'hosts' | 'adblock'), warnings: [] };
  } else if (flags.config) {
    const { config, warnings } = await loadConfigFile(flags.config);
    loaded = { config, warnings };
  } else {
    const found = await discoverConfig(cwd);
    if (!found) throw new InputError([missing]);
    loaded = found;
  }
  if (flags['on-source-error'])
    loaded.config = { ...loaded.config, onSourceError: flags['on-source-error'] as 'fail' | 'skip' | 'stale' };
  const format: OutputFormat = flags.format ?? loaded.config.format ?? 'adblock';
  if (flags['hosts-address'] && format !== 'hosts') {
    throw new InputError([`--hosts-address is for the hosts format; this compile writes ${format}`]);
  }
  return loaded;
}

/** `SOURCE_DATE_EPOCH` (seconds) pins the list's `Last modified` for reproducible builds. */
export function clockFrom(env: NodeJS.ProcessEnv): (() => Date) | undefined {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) {
    throw new ConfigError([{ path: 'SOURCE_DATE_EPOCH', message: `must be whole seconds since 1970, got "${raw}"` }]);
  }
  const at = new Date(Number(raw) * 1000);
  return () => at;
}

/** FLC_ENGINE: `packed` (the default) or `strings`, the readable engine (the same output, slower). */
function packedEngineFrom(env: NodeJS.ProcessEnv): boolean {
  const raw = env.FLC_ENGINE;
  if (raw === undefined || raw === '' || raw === 'packed') return true;
  if (raw === 'strings') return false;
  throw new ConfigError([{ path: 'FLC_ENGINE', message: `must be "packed" or "strings", got "${raw}"` }]);
}

/** Everything of a compile job that comes from flags and the environment. */
export function compileSettings(flags: CompileFlags, env: NodeJS.ProcessEnv, version: string) {
  return {
    format: flags.format,
    hostsAddresses: flags['hosts-address'] ? hostsAddresses(flags['hosts-address']) : undefined,
    packed: packedEngineFrom(env),
    compiler: `flc v${version}`,
    now: clockFrom(env),
    http: {
      ...DEFAULT_HTTP,
      timeoutMs: flags.timeout * 1000,
      retries: flags.retries,
      concurrency: flags.concurrency,
      retryBaseMs: Number(env.FLC_RETRY_BASE_MS) || DEFAULT_HTTP.retryBaseMs,
      cacheDir: flags['no-cache'] ? null : (flags['cache-dir'] ?? defaultCacheDir(env)),
      userAgent: userAgentOf(version),
    },
  };
}
