// Differential updates in AdGuard's format (`! Diff-Path:` and RCS patches), made by AdGuard's own
// builder, @adguard/diff-builder, so that its updater, and the blockers that follow the same
// specification, apply them. The builder updates the new list in place and writes the patches;
// flc gives it a staged copy beside the output and renames that over the output once the patches
// are on disk, so that a list never names a patch that is not there.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
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
 * than `keepSeconds`. Returns the list as written (with its header). `warn` prints a line on stderr.
 *
 * A patch name is never given twice: a build in the same time unit as the previous one would get
 * the previous list's patch name, and after a chain started afresh the name may belong to an older
 * one. The builder refuses the first only when the tag names the patch bare (patches beside the
 * list); otherwise it wrote the patch to the new version into the file the new list names again.
 * flc refuses both before the builder runs (nothing is written or pruned).
 *
 * The list published is `text` with the tag line first, whatever the builder does: it leaves the
 * list without a patch when the patch fails its own check (V8 refuses its apply of ~125,000 added
 * lines at once; `diff` makes no RCS patch of a text with a NUL byte), and it drops or adds lines
 * that hold `Diff-Path` or `Checksum` anywhere in its first 50. Then the list starts a new chain (its
 * tag names an empty patch) and the previous version's patch stays as it was: clients holding it
 * take the new list at their next full download, as they take a list that never had a patch.
 */
export async function writeWithPatch(
  output: string,
  previous: string | null,
  text: string,
  s: DiffSettings,
  warn: (line: string) => void,
) {
  const next = patchBuiltAt(s, Date.now());
  const before = previous === null ? null : namedPatch(output, previous);
  if (
    before === next ||
    (await readFile(next).then(
      () => true,
      () => false,
    ))
  )
    throw sameUnitError(s);
  const { DiffBuilder } = await import('@adguard/diff-builder/es');
  const dir = dirname(resolve(output));
  const stage = join(dir, `.${basename(output)}.${process.pid}.${randomBytes(4).toString('hex')}.flc-new`);
  // Without a previous list, the builder compares with an empty one: the list gets its
  // `Diff-Path` (and the empty patch it names), and there is no patch to the previous version.
  const empty = previous !== null ? null : `${stage}.empty`;
  // What the previous patch file held (the empty patch a list names until its next version), put
  // back when the builder wrote a patch the list published does not follow.
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
    let written = await readFile(stage, 'utf8');
    const tag = `! Diff-Path: ${relative(dir, next).split(sep).join('/')}`;
    if (written !== `${tag}\n${text}`) {
      if (before !== null && kept !== null && !kept.equals(await readFile(before).catch(() => kept))) {
        await writeFileAtomic(before, kept);
      }
      await mkdir(dirname(next), { recursive: true });
      await writeFile(next, '', { flag: 'a' });
      written = `${tag}\n${text}`;
      await writeFile(stage, written);
      warn(
        `Warning: no patch from the previous list could be made that reproduces this one; ${output} starts a ` +
          'new chain of patches, and clients holding an earlier version take it at their next full download',
      );
    }
    await rename(stage, output);
    return written;
  } finally {
    await rm(stage, { force: true });
    if (empty) await rm(empty, { force: true });
  }
}
