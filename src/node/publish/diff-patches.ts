// Differential updates in AdGuard's format (`! Diff-Path:` and RCS patches), made by AdGuard's own
// builder, @adguard/diff-builder, so that its updater, and the blockers that follow the same
// specification, apply them. The builder updates the new list in place and writes the patches;
// flc gives it a staged copy beside the output and renames that over the output once the patches
// are on disk, so that a list never names a patch that is not there.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../../core/errors/index.js';

export const DIFF_RESOLUTIONS = ['h', 'm', 's'] as const;
export type DiffResolution = (typeof DIFF_RESOLUTIONS)[number];

const UNIT_NAMES: Record<DiffResolution, string> = { h: 'hour', m: 'minute', s: 'second' };

export interface DiffSettings {
  /** The folder of the patches. */
  dir: string;
  /** The patches' name: 1-64 letters, digits, `_` and `.`. */
  name: string;
  resolution: DiffResolution;
  /**
   * The specification's expiration period, in `resolution` units: how long a version of the list
   * stays current, after which clients ask for its patch.
   */
  expiry: number;
  /** Patches older than this many seconds are pruned (a client further behind downloads the list). */
  keepSeconds: number;
  /** Put a SHA-1 checksum of the new list in each patch's `diff` directive. */
  checksum: boolean;
}

export const PATCH_NAME_RE = /^[a-zA-Z0-9_.]{1,64}$/;

/** Whether a list has a `! Diff-Path:` line, its lines split on LF only (a regex's `m` would also split on U+2028). */
const hasDiffPath = (list: string) => list.split('\n').some((line) => line.startsWith('! Diff-Path: '));

/**
 * Writes `text` to `output` with a `! Diff-Path:` header and, when `output` held a list before,
 * the patch from it to the new one; prunes patches older than `keepSeconds`. Returns the list as
 * written (with its header).
 */
export async function writeWithPatch(output: string, hadPrevious: boolean, text: string, s: DiffSettings) {
  const { DiffBuilder } = await import('@adguard/diff-builder/es');
  const dir = dirname(resolve(output));
  const stage = join(dir, `.${basename(output)}.${process.pid}.${randomBytes(4).toString('hex')}.flc-new`);
  // Without a previous list, the builder compares with an empty one: the list gets its
  // `Diff-Path` (and the empty patch it names), and there is no patch to the previous version.
  const empty = hadPrevious ? null : `${stage}.empty`;
  try {
    await writeFile(stage, text, { flag: 'wx' });
    if (empty) await writeFile(empty, '', { flag: 'wx' });
    try {
      await DiffBuilder.buildDiff({
        oldFilterPath: empty ?? resolve(output),
        newFilterPath: stage,
        patchesPath: resolve(s.dir),
        name: s.name,
        time: s.expiry,
        resolution: s.resolution,
        checksum: s.checksum,
        deleteOlderThanSec: s.keepSeconds,
      });
    } catch (e) {
      const message = (e as Error).message;
      if (/are the same/.test(message)) {
        throw new InputError([
          `the previous list's patch has this build's name: with --diff-resolution ${s.resolution} a list can ` +
            `change once a ${UNIT_NAMES[s.resolution]}; build later or choose a finer resolution (m or s)`,
        ]);
      }
      throw new Error(`differential update failed: ${message}`, { cause: e });
    }
    const written = await readFile(stage, 'utf8');
    // The builder leaves the list as it was when its patch failed to reproduce it.
    if (!hasDiffPath(written)) {
      throw new Error('differential update failed: the patch did not reproduce the new list; nothing was written');
    }
    await rename(stage, output);
    return written;
  } finally {
    await rm(stage, { force: true });
    if (empty) await rm(empty, { force: true });
  }
}
