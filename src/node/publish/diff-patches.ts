// Differential updates in AdGuard's format (`! Diff-Path:` and RCS patches), made by AdGuard's own
// builder, @adguard/diff-builder, so that its updater, and the blockers that follow the same
// specification, apply them. The builder updates the new list in place and writes the patches; flc
// has it do so in a staging folder beside the output, laid out as the output and its patches are,
// and then publishes in the order that leaves clients consistent at every step (`writeWithPatch`).
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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

/** A patch name's time in milliseconds (`name[-resolution]-time-expiry.patch`); null for another name. */
function patchTime(file: string): number | null {
  const parts = file.replace(/\.patch$/, '').split('-');
  if (!file.endsWith('.patch') || (parts.length !== 3 && parts.length !== 4)) return null;
  const resolution = (parts.length === 4 ? parts[1] : 'h') as DiffResolution;
  const time = Number(parts[parts.length - 2]);
  return UNITS[resolution] && Number.isInteger(time) ? time * UNITS[resolution].ms : null;
}

/**
 * Removes the patches of `dir` made longer than `keepSeconds` ago, as the builder prunes before it
 * writes: never an empty one (a published list names it as its next patch), nor the one this build
 * just filled (`filled`), nor a name not of the patch form.
 */
async function prune(dir: string, keepSeconds: number, now: number, filled: string | null): Promise<void> {
  for (const file of await readdir(dir)) {
    const time = patchTime(file);
    const path = join(dir, file);
    if (time === null || time >= now - keepSeconds * 1000 || path === filled) continue;
    if ((await stat(path)).size > 0) await rm(path, { force: true });
  }
}

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
  const next = patchBuiltAt(s, now);
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
  const patchesRel = relative(dir, resolve(s.dir));
  const beforeRel = before === null ? '' : relative(dir, before);
  // The staging folder: the list deep enough in it that the patches' paths from it stay inside.
  // One a killed build left is removed first (CI deploys the folder as it is).
  const prefix = `.${basename(output)}.flc-`;
  for (const left of await readdir(dir))
    if (left.startsWith(prefix)) await rm(join(dir, left), { recursive: true, force: true });
  const staging = await mkdtemp(join(dir, prefix));
  const stageDir = join(staging, ...Array<string>(Math.max(ups(patchesRel), ups(beforeRel))).fill('d'));
  const stage = join(stageDir, basename(output));
  try {
    await mkdir(stageDir, { recursive: true });
    await writeFile(stage, text, { flag: 'wx' });
    // Without a previous list, the builder compares with an empty one: the list gets its
    // `Diff-Path` (and the empty patch it names), and there is no patch to the previous version.
    const empty = join(staging, 'empty');
    if (previous === null) await writeFile(empty, '', { flag: 'wx' });
    try {
      await DiffBuilder.buildDiff({
        oldFilterPath: previous === null ? empty : resolve(output),
        newFilterPath: stage,
        patchesPath: resolve(stageDir, patchesRel),
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
    const tag = `! Diff-Path: ${relative(dir, next).split(sep).join('/')}`;
    const written = `${tag}\n${text}`;
    const faithful = (await readFile(stage, 'utf8')) === written;
    if (!faithful) {
      await writeFile(stage, written);
      warn(
        `Warning: no patch from the previous list could be made that reproduces this one; ${output} starts a ` +
          'new chain of patches, and clients holding an earlier version take it at their next full download',
      );
    }
    await mkdir(dirname(next), { recursive: true });
    await writeFile(next, '', { flag: 'wx' });
    await rename(stage, output);
    if (faithful && before !== null) await writeFileAtomic(before, await readFile(resolve(stageDir, beforeRel)));
    await prune(resolve(s.dir), s.keepSeconds, now, faithful ? before : null);
    return written;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
