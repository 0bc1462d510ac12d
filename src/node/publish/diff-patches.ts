// Differential updates in AdGuard's format (`! Diff-Path:` and RCS patches), made by AdGuard's own
// builder, @adguard/diff-builder, so that its updater, and the blockers that follow the same
// specification, apply them. The builder updates the new list in place and writes the patches; flc
// has it do so in a staging folder beside the output, laid out as the output and its patches are,
// and then publishes in the order that leaves clients consistent at every step (`writeWithPatch`).
import { lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { InputError } from '../../core/errors/index.js';
import { PATCH_NAME_RE } from '../../core/config/publish-schema.js';
import { keepMode, writeFileAtomic } from '../atomic-write.js';

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
  /**
   * The list's folder as given (`-o`'s, links unresolved: the output is replaced where its links
   * lead, but a client walks the tag from the list's URL, which follows the given paths); the
   * output's own folder when not given.
   */
  listDir?: string;
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

/** The tag a list names its next patch with. */
const DIFF_PATH_TAG = '! Diff-Path: ';

/**
 * The `! Diff-Path:` value a list opens with, its `#resource` part left out; null when it opens with
 * none. The builder writes the tag at the top (after a user-agent line and a `! Checksum:` line,
 * which it puts before it); one further down is a line of a source, which must name no file here.
 */
export function leadingDiffPath(list: string): string | null {
  for (const line of list.split(/\r?\n/, 3)) {
    if (line.startsWith(DIFF_PATH_TAG)) {
      // flc writes a relative path; an absolute one or a URL names nothing of this list's here.
      const value = line.slice(DIFF_PATH_TAG.length).trim().split('#')[0];
      return value === '' || isAbsolute(value) || /^[a-z][a-z0-9+.-]*:/i.test(value) ? null : value;
    }
    if (!(line.startsWith('[') || line.startsWith('![') || line.startsWith('! Checksum: '))) return null;
  }
  return null;
}

/** The patch file a list's leading `! Diff-Path:` names, resolved in the list's folder `dir`, or null. */
function namedPatch(dir: string, list: string): string | null {
  const value = leadingDiffPath(list);
  return value === null ? null : resolve(dir, value);
}

/**
 * The patch file the builder names for a list built at `now`, in the specification's form
 * `name[-resolution]-time-expiry.patch` (the resolution left out for hours, the time in the
 * resolution's units since the epoch, rounded as the builder rounds it).
 */
function patchBuiltAt(s: DiffSettings, folder: string, now: number): string {
  const time = Math.round(now / UNITS[s.resolution].ms);
  const parts = [s.name, ...(s.resolution === 'h' ? [] : [s.resolution]), time, s.expiry];
  return join(folder, `${parts.join('-')}.patch`);
}

const FINER: Record<DiffResolution, string> = { h: ' or choose a finer resolution (m or s)', m: ' or choose s', s: '' };

/** The refusal of a patch name already given: the previous list's, or one an older chain named. */
function takenError(s: DiffSettings, previous: boolean, file: string): InputError {
  const what = previous
    ? "the previous list's patch has this build's name"
    : `the patch ${basename(file)} exists already`;
  return new InputError([
    `${what}: with --diff-resolution ${s.resolution} a list can change once ${UNITS[s.resolution].name}; ` +
      `build later${FINER[s.resolution]}`,
  ]);
}

/** A patch file's name: `name[-resolution]-time-expiry.patch`. */
const PATCH_FILE_RE = new RegExp(`^${PATCH_NAME_RE.source.slice(1, -1)}(?:-([hms]))?-(\\d{1,15})-\\d{1,15}\\.patch$`);

/** A patch name's time in milliseconds; null for a name not of the patch form. */
function patchTime(file: string): number | null {
  const m = PATCH_FILE_RE.exec(file);
  return m === null ? null : Number(m[2]) * UNITS[(m[1] ?? 'h') as DiffResolution].ms;
}

/** A temporary file `writeFileAtomic` leaves beside a patch when it is killed. */
const LEFT_TEMP = /^\..+\.patch\.\d+\.[a-z0-9]+\.tmp$/;

/**
 * Removes the patches of `dir` made longer than `keepSeconds` ago, as the builder prunes before it
 * writes: only regular files, never an empty one (a published list names it as its next patch), nor
 * the one this build just filled (`filled`), nor a name not of the patch form; and the temporary
 * files a killed build left. A file that cannot be removed is warned about, not failed on: the list
 * is out by then.
 */
async function prune(
  dir: string,
  keepSeconds: number,
  now: number,
  filled: string | null,
  warn: (line: string) => void,
) {
  for (const file of await readdir(dir).catch(() => [])) {
    const time = patchTime(file);
    const path = join(dir, file);
    const old = time !== null && time < now - keepSeconds * 1000 && path !== filled;
    if (!old && !LEFT_TEMP.test(file)) continue;
    try {
      const info = await lstat(path);
      if (info.isFile() && (info.size > 0 || time === null)) await unlink(path);
    } catch (e) {
      warn(`Warning: --diff-keep: ${path} could not be removed: ${(e as Error).message}`);
    }
  }
}

const exists = (file: string) =>
  lstat(file).then(
    () => true,
    () => false,
  );

/** How many `..` a relative path holds: how deep a staging copy of its start must sit to keep it inside. */
const ups = (path: string) => path.split(/[\\/]/).filter((part) => part === '..').length;

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
 * The builder writes into a staging folder. Then, in this order: the new list's (empty) next patch,
 * the list (renamed over the output), the previous version's patch (written whole, then renamed),
 * the pruning. Killed at any point, no published list names a missing patch and no client is sent
 * to a version that was not published: at worst the clients of the previous version keep it until
 * their next full download. (The builder itself writes the previous patch in place, before the list.)
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
  const now = Date.now();
  // Paths as given, links unresolved: the tag is the path a client walks from the list's URL.
  const dir = resolve(s.listDir ?? dirname(resolve(output)));
  const patches = resolve(s.dir);
  // The previous patch the tag names.
  const before = previous === null ? null : namedPatch(dir, previous);
  const planned = patchBuiltAt(s, patches, now);
  if (before === planned) throw takenError(s, true, planned);
  if (await exists(planned)) throw takenError(s, false, planned);
  const { DiffBuilder } = await import('@adguard/diff-builder/es');
  const patchesRel = relative(dir, patches);
  const beforeRel = before === null ? '' : relative(dir, before);
  // The staging folder: the list deep enough in it that the patches' paths from it stay inside.
  // One a killed build left is removed first (CI deploys the folder as it is).
  const prefix = `.${basename(output)}.flc-`;
  for (const left of await readdir(dir))
    if (left.startsWith(prefix)) await rm(join(dir, left), { recursive: true, force: true });
  const staging = await mkdtemp(join(dir, prefix));
  const stageDir = join(staging, ...Array<string>(Math.max(ups(patchesRel), ups(beforeRel))).fill('d'));
  const stage = join(stageDir, basename(output));
  const tmpdir = process.env.TMPDIR;
  try {
    await mkdir(stageDir, { recursive: true });
    // The previous patch's folder too: the patches may have moved since.
    if (before !== null) await mkdir(dirname(resolve(stageDir, beforeRel)), { recursive: true });
    await writeFile(stage, text, { flag: 'wx' });
    // Without a previous list, the builder compares with an empty one: the list gets its
    // `Diff-Path` (and the empty patch it names), and there is no patch to the previous version.
    const empty = join(staging, 'empty');
    if (before === null) await writeFile(empty, '', { flag: 'wx' });
    try {
      // The builder's copies of both lists (for `diff`) go in the staging folder, removed with it.
      process.env.TMPDIR = staging;
      await DiffBuilder.buildDiff({
        // A previous list that does not open with flc's tag is not shown it: its tags name nothing here.
        oldFilterPath: before === null ? empty : resolve(output),
        newFilterPath: stage,
        patchesPath: resolve(stageDir, patchesRel),
        name: s.name,
        time: s.expiry,
        resolution: s.resolution,
        checksum: s.checksum,
        // Pruned after the list is out (`prune`); the staging folder holds no old patch.
        deleteOlderThanSec: s.keepSeconds,
      });
    } catch (e) {
      const message = (e as Error).message;
      if (/are the same/.test(message)) throw takenError(s, true, planned);
      throw new Error(`differential update failed: ${message}`, { cause: e });
    } finally {
      if (tmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdir;
    }
    // The builder reads the clock again: its name may be a unit later than `planned`.
    const staged = await readFile(stage, 'utf8');
    const head = staged.slice(0, staged.indexOf('\n'));
    const value = head.startsWith(DIFF_PATH_TAG) ? head.slice(DIFF_PATH_TAG.length) : '';
    const named = resolve(dir, value);
    const faithful =
      value !== '' &&
      staged === `${head}\n${text}` &&
      dirname(named) === patches &&
      basename(named).startsWith(`${s.name}-`) &&
      patchTime(basename(named)) !== null;
    const next = faithful ? named : planned;
    if (faithful && next !== planned && (await exists(next))) throw takenError(s, false, next);
    const written = faithful ? staged : `${DIFF_PATH_TAG}${relative(dir, next).split(sep).join('/')}\n${text}`;
    if (!faithful) {
      await writeFile(stage, written);
      warn(
        `Warning: no patch from the previous list could be made that reproduces this one; ${output} starts a ` +
          'new chain of patches, and clients holding an earlier version take it at their next full download',
      );
    }
    await mkdir(dirname(next), { recursive: true });
    await writeFile(next, '', { flag: 'wx' });
    // The list keeps its permissions, as a list written without --diff-patches does.
    await keepMode(output, stage);
    await rename(stage, output);
    if (faithful && before !== null) {
      // The list is out: a previous patch that cannot be replaced leaves its clients where they are.
      const patch = await readFile(resolve(stageDir, beforeRel));
      await writeFileAtomic(before, patch).catch((e: Error) =>
        warn(
          `Warning: the patch to this list from the previous one could not be written to ${before} ` +
            `(${e.message}); clients of the previous version take this one at their next full download`,
        ),
      );
    }
    await prune(patches, s.keepSeconds, now, faithful ? before : null, warn);
    return written;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
