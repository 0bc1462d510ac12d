// Differential updates in AdGuard's format (`! Diff-Path:` and RCS patches), made by AdGuard's own
// builder, @adguard/diff-builder, so that its updater, and the blockers that follow the same
// specification, apply them. The builder updates the new list in place and writes the patches;
// flc gives it a staged copy beside the output and renames that over the output once the patches
// are on disk, so that a list never names a patch that is not there.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../../core/errors/index.js';
import { writeFileAtomic } from '../atomic-write.js';

export const DIFF_RESOLUTIONS = ['h', 'm', 's'] as const;
export type DiffResolution = (typeof DIFF_RESOLUTIONS)[number];

const UNITS: Record<DiffResolution, { name: string; ms: number }> = {
  h: { name: 'an hour', ms: 3_600_000 },
  m: { name: 'a minute', ms: 60_000 },
  s: { name: 'a second', ms: 1_000 },
};

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
 * The `! Diff-Path:` value a list opens with, its `#resource` part left out; null when it opens with
 * none. The builder writes the tag at the top (after a user-agent line and a `! Checksum:` line,
 * which it puts before it); one further down is a line of a source, which must name no file here.
 */
export function leadingDiffPath(list: string): string | null {
  const tag = '! Diff-Path: ';
  for (const line of list.split(/\r?\n/, 3)) {
    if (line.startsWith(tag)) return line.slice(tag.length).trim().split('#')[0] || null;
    if (!(line.startsWith('[') || line.startsWith('![') || line.startsWith('! Checksum: '))) return null;
  }
  return null;
}

/** The patch file a list's leading `! Diff-Path:` names, resolved beside the list at `output`; null when it has none. */
function namedPatch(output: string, list: string): string | null {
  const value = leadingDiffPath(list);
  return value === null ? null : resolve(dirname(resolve(output)), value);
}

/**
 * The patch file the builder names for a list built at `now`, in the specification's form
 * `name[-resolution]-time-expiry.patch` (the resolution left out for hours, the time in the
 * resolution's units since the epoch, rounded as the builder rounds it).
 */
function patchBuiltAt(s: DiffSettings, now: number): string {
  const time = Math.round(now / UNITS[s.resolution].ms);
  const parts = [s.name, ...(s.resolution === 'h' ? [] : [s.resolution]), time, s.expiry];
  return resolve(s.dir, `${parts.join('-')}.patch`);
}

const sameUnitError = (s: DiffSettings) =>
  new InputError([
    `the previous list's patch has this build's name: with --diff-resolution ${s.resolution} a list can ` +
      `change once ${UNITS[s.resolution].name}; build later or choose a finer resolution (m or s)`,
  ]);

/**
 * Writes `text` to `output` with a `! Diff-Path:` header and, when `output` held a list that opens
 * with one (`previous`, `leadingDiffPath`), the patch from it to the new one; prunes patches older
 * than `keepSeconds`.
 * Returns the list as written (with its header).
 *
 * A build in the same time unit as the previous one would get the previous list's patch name. The
 * builder refuses that only when the tag names the patch bare (patches beside the list); with the
 * patches in another folder it would write the patch to the new version into the file the new list
 * names again, a chain that never ends. flc refuses both before the builder runs, and checks the
 * list the builder wrote before it replaces the output.
 */
export async function writeWithPatch(output: string, previous: string | null, text: string, s: DiffSettings) {
  const before = previous === null ? null : namedPatch(output, previous);
  if (before !== null && before === patchBuiltAt(s, Date.now())) throw sameUnitError(s);
  const { DiffBuilder } = await import('@adguard/diff-builder/es');
  const dir = dirname(resolve(output));
  const stage = join(dir, `.${basename(output)}.${process.pid}.${randomBytes(4).toString('hex')}.flc-new`);
  // Without a previous list, the builder compares with an empty one: the list gets its
  // `Diff-Path` (and the empty patch it names), and there is no patch to the previous version.
  const empty = previous !== null ? null : `${stage}.empty`;
  // What the previous patch file held (the empty patch a list names until its next version),
  // put back if the builder wrote into it after all (a clock set back between the two builds).
  const kept = before === null ? null : await readFile(before).catch(() => null);
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
      if (/are the same/.test(message)) throw sameUnitError(s);
      throw new Error(`differential update failed: ${message}`, { cause: e });
    }
    const written = await readFile(stage, 'utf8');
    // The builder leaves the list as it was when its patch failed to reproduce it.
    if (!hasDiffPath(written)) {
      throw new Error('differential update failed: the patch did not reproduce the new list; nothing was written');
    }
    if (before !== null && namedPatch(output, written) === before) {
      if (kept !== null) await writeFileAtomic(before, kept);
      throw sameUnitError(s);
    }
    await rename(stage, output);
    return written;
  } finally {
    await rm(stage, { force: true });
    if (empty) await rm(empty, { force: true });
  }
}
