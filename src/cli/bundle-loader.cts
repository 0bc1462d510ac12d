// Loads a CommonJS bundle (dist/flc-fast.cjs) the way Node 22's module.enableCompileCache() loads
// any module, on every Node this package supports: the compiled code V8 produced for it on an
// earlier run is read from a cache folder, so a run starts without recompiling the CLI framework,
// the schema library and AGTree (most of a short run's start-up; see bench/RESULTS.md).
//
// Node 22.1+ has the cache built in; there the bundle is simply required after enabling it. On
// Node 20 the bundle is compiled with vm.Script and `cachedData`. V8 refuses data made by another
// V8 version or with other flags; a cache file is also named after the bundle's size and mtime and
// carries a check of its payload, so a rebuilt bundle or a damaged file is never used.
// NODE_DISABLE_COMPILE_CACHE=1 turns the cache off and NODE_COMPILE_CACHE=DIR moves it, as on 22.
import { isAscii } from 'node:buffer';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import vm from 'node:vm';

const MAGIC = 'flc-v8-cache-v2\n';
const CHECK_BYTES = 8;
/** Where the payload starts: a multiple of 4, so that `check` reads it as words in place. */
const HEADER = MAGIC.length + CHECK_BYTES;

export interface LoadedBundle {
  exports: Record<string, unknown>;
  /** 'builtin' (Node's own cache), 'hit', 'miss' (compiled, cache written at exit), 'rejected', 'off'. */
  cache: 'builtin' | 'hit' | 'miss' | 'rejected' | 'off';
  /** Writes the cache now if it needs writing (once); what `saveAtExit` does at exit. */
  save(): void;
}

export interface BundleOptions {
  /** Names the cache file, so that each command keeps the code it uses. */
  key: string;
  env?: NodeJS.ProcessEnv;
  /** Test hook: use vm.Script even where Node has its own cache. */
  forceScript?: boolean;
  /** Write the cache when the process exits (default); a worker thread calls `save()` instead. */
  saveAtExit?: boolean;
}

/**
 * The cache folder: NODE_COMPILE_CACHE, else a folder of this user's in the system temporary
 * folder; null when disabled, or when that shared folder is not this user's alone (cached code
 * is run as it is, so nobody else may be able to write it).
 */
export function cacheDir(env: NodeJS.ProcessEnv): string | null {
  if (env.NODE_DISABLE_COMPILE_CACHE) return null;
  if (env.NODE_COMPILE_CACHE) return env.NODE_COMPILE_CACHE;
  const uid = process.getuid?.();
  const dir = join(tmpdir(), `flc-compile-cache-${uid ?? 'user'}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = statSync(dir);
    if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0)) return null;
    return dir;
  } catch {
    return null;
  }
}

export function loadBundle(file: string, options: BundleOptions): LoadedBundle {
  const env = options.env ?? process.env;
  const enable = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (enable && !options.forceScript) {
    enable();
    return { exports: require(file) as Record<string, unknown>, cache: 'builtin', save: () => undefined };
  }
  const bytes = readFileSync(file);
  // An ASCII file (scripts/bundle.js makes the bundle one) becomes a one-byte string, much cheaper than
  // decoding UTF-8.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const dir = cacheDir(env);
  const cacheFile = dir ? join(dir, cacheName(file, options.key)) : null;
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const mod = { exports: {} as Record<string, unknown> };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    mod.exports,
    createRequire(file),
    mod,
    file,
    dirname(file),
  );
  if (!cacheFile) return { exports: mod.exports, cache: 'off', save: () => undefined };
  const cache = cachedData === undefined ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit';
  let pending = cache !== 'hit';
  const save = () => {
    if (pending) writeCache(cacheFile, script);
    pending = false;
  };
  // At exit, so that it holds the functions this run compiled, not just the top level.
  if (pending && options.saveAtExit !== false) process.once('exit', save);
  return { exports: mod.exports, cache, save };
}

/**
 * `KEY-INSTALL-BUILD.bin`: INSTALL hashes the bundle's path and the Node that runs it, BUILD its
 * size and mtime. Writing a build's file removes the install's files of other builds.
 */
function cacheName(file: string, key: string): string {
  const stat = statSync(file);
  const hash = (text: string) => check(Buffer.from(text)).toString('hex');
  return `${key}-${hash(`${file}\0${process.version}\0${process.arch}`)}-${hash(`${stat.size}\0${stat.mtimeMs}`)}.bin`;
}

/** The payload of a cache file whose header and check agree; undefined otherwise. */
function readCache(path: string): Buffer | undefined {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch {
    return undefined;
  }
  if (data.length <= HEADER || data.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
  const payload = data.subarray(HEADER);
  return check(payload).equals(data.subarray(MAGIC.length, HEADER)) ? payload : undefined;
}

/**
 * 64 bits that change whenever one 4-byte word of `bytes` does (each of the two running values
 * goes through a bijection per word), and almost surely when several do: a truncated or
 * damaged cache file is caught, as a SHA-256 caught it, without loading node:crypto (a cost
 * every run would pay). The folder is the user's own, so nobody forges a file; this is no signature.
 */
export function check(bytes: Uint8Array): Buffer {
  const n = bytes.length >> 2;
  const words =
    (bytes.byteOffset & 3) === 0
      ? new Int32Array(bytes.buffer, bytes.byteOffset, n)
      : new Int32Array(bytes.slice(0, n * 4).buffer);
  let a = 0x811c9dc5 | 0;
  let b = bytes.length | 0;
  for (let i = 0; i < n; i += 1) {
    const w = words[i];
    a = Math.imul(a ^ w, 0x01000193);
    b = Math.imul((b + w) | 0, 0x85ebca6b);
    b ^= b >>> 13;
  }
  for (let i = n * 4; i < bytes.length; i += 1) {
    a = Math.imul(a ^ bytes[i], 0x01000193);
    b = Math.imul((b + bytes[i]) | 0, 0x85ebca6b);
    b ^= b >>> 13;
  }
  const out = Buffer.alloc(CHECK_BYTES);
  out.writeInt32LE(a, 0);
  out.writeInt32LE(b, 4);
  return out;
}

/** Writes the cache atomically and removes the files of this install's other builds; never throws. */
function writeCache(path: string, script: vm.Script): void {
  try {
    const payload = script.createCachedData();
    const dir = dirname(path);
    mkdirSync(dir, { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, Buffer.concat([Buffer.from(MAGIC, 'latin1'), check(payload), payload]));
    renameSync(temp, path);
    const name = path.slice(dir.length + 1);
    const install = name.slice(0, name.lastIndexOf('-') + 1);
    for (const other of readdirSync(dir)) {
      if (other !== name && other.startsWith(install) && other.endsWith('.bin'))
        rmSync(join(dir, other), { force: true });
    }
  } catch {
    // A cache that cannot be written only costs the next run its start-up time.
  }
}
