import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { chmod, mkdir, open, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../core/errors/index.js';

/**
 * Writes a file so that readers see either the old content or the whole new one:
 * the data goes to a temporary file beside the target, then is renamed over it.
 * The temporary file is created exclusively (`wx`), so a name that someone else has
 * taken (a file, or a link planted in a shared folder) fails the write instead of
 * being written through; its random part needs no cryptographic source for that.
 * Makes the target's folder when it is missing (for caches); a user's output goes through
 * `writeOutputFile`, which refuses a missing folder.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await replaceAtomically(file, data);
}

async function replaceAtomically(file: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(file);
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  try {
    await writeFile(tmp, data, { flag: 'wx' });
  } catch (e) {
    // Not ours to remove when it was there before.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') await rm(tmp, { force: true });
    throw e;
  }
  try {
    await keepMode(file, tmp);
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/**
 * Gives the file that replaces `file` its permissions (a list kept group-readable only stays so);
 * a new file has the default ones.
 */
export async function keepMode(file: string, replacement: string): Promise<void> {
  const mode = await stat(file).then(
    (s) => s.mode & 0o7777,
    () => null,
  );
  if (mode !== null) await chmod(replacement, mode);
}

/**
 * Where an output goes: a regular file (replaced atomically), anything else (written in place), or
 * one of this process's own streams (whose name cannot be opened when it is a socket).
 */
export type OutputTarget =
  | { kind: 'file'; path: string }
  | { kind: 'stream'; path: string }
  | { kind: 'stdio'; stream: 'stdout' | 'stderr' };

const OWN_STREAMS = new Map<string, 'stdout' | 'stderr'>([
  ['-', 'stdout'],
  ['/dev/stdout', 'stdout'],
  ['/dev/stderr', 'stderr'],
  ['/dev/fd/1', 'stdout'],
  ['/dev/fd/2', 'stderr'],
  ['/proc/self/fd/1', 'stdout'],
  ['/proc/self/fd/2', 'stderr'],
]);

/**
 * What writing `file` means, checked before the work starts: a symbolic link is followed to the
 * file it names (whose replacement leaves the link in place); a device, FIFO or socket
 * (`/dev/stdout`, a named pipe) is written in place, never replaced; a new file needs its folder to
 * exist. A missing folder is an InputError naming it, so that a typo in a path fails the run.
 */
export async function outputTarget(file: string, what = 'output'): Promise<OutputTarget> {
  const own = OWN_STREAMS.get(file);
  if (own) return { kind: 'stdio', stream: own };
  const absolute = resolve(file);
  const info = await stat(absolute).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return null;
    throw e;
  });
  if (info?.isDirectory()) throw new InputError([`cannot write the ${what} ${file}: it is a folder`]);
  if (info && !info.isFile()) return { kind: 'stream', path: absolute };
  if (info) return { kind: 'file', path: await realpath(absolute) };
  // A new file, or a link to one not yet made: its folder must be there.
  const real = await realpath(absolute).catch(() => null);
  const folder = dirname(real ?? absolute);
  const folderInfo = await stat(folder).catch(() => null);
  if (!folderInfo?.isDirectory()) {
    throw new InputError([`cannot write the ${what} ${file}: the folder ${dirname(file)} does not exist`]);
  }
  return { kind: 'file', path: real ?? (await realpath(folder).then((f) => join(f, basename(absolute)))) };
}

/** Writes `data` to a target `outputTarget` chose: atomically for a file, in place for a stream. */
export async function writeOutput(target: OutputTarget, data: string | Uint8Array): Promise<void> {
  if (target.kind === 'file') return replaceAtomically(target.path, data);
  if (target.kind === 'stdio') {
    const stream = process[target.stream];
    if (!stream.write(data)) await new Promise((done) => stream.once('drain', done));
    return;
  }
  const handle = await open(target.path, 'w');
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

/** A text written piece by piece into an output target, in constant memory; `commit` makes it whole. */
export interface OutputStream {
  write(text: string): void;
  /** Flushes; a regular file then replaces the target (atomically), so nobody sees half of it. */
  commit(): Promise<void>;
  /** Drops what was written to a temporary file; a stream keeps what it got. */
  abort(): void;
}

const CHUNK = 64 * 1024;

/**
 * Opens `target` for a text written as it is made (a report while the compile runs): a regular
 * file through a temporary file beside it, renamed over it on `commit`; a device or pipe in place;
 * this process's stdout or stderr through its stream. Writes are synchronous and batched, so the
 * text is never held whole however long it grows.
 */
export function openOutput(target: OutputTarget): OutputStream {
  const temp =
    target.kind === 'file'
      ? join(
          dirname(target.path),
          `.${basename(target.path)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`,
        )
      : null;
  // This process's own stream is written through its descriptor, never closed.
  const own = target.kind === 'stdio';
  const fd = own ? (target.stream === 'stdout' ? 1 : 2) : openSync(temp ?? target.path, temp ? 'wx' : 'w');
  let pending = '';
  let open = !own;
  const flush = () => {
    writeAllSync(fd, pending);
    pending = '';
  };
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    write(text) {
      pending += text;
      if (pending.length >= CHUNK) flush();
    },
    async commit() {
      flush();
      close();
      if (temp && target.kind === 'file') {
        await keepMode(target.path, temp);
        await rename(temp, target.path);
      }
    },
    abort() {
      close();
      if (temp) rmSync(temp, { force: true });
    },
  };
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to the descriptor `fd` before returning. A pipe whose reader is slow takes
 * part of it, or nothing (EAGAIN on a non-blocking pipe, as Node makes stdout and stderr): the rest
 * waits here rather than in a queue that would grow with everything a long compile writes.
 */
export function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}
