import type { ApplyReport } from '../store/admin.js';
import type { Store } from '../store/store.js';
import { diffBundles, type SectionDiff } from './diff.js';
import { type BundleFormat, parseBundleText, serializeBundle } from './format.js';
import { validateBundle } from './validate.js';
import type { SectionName } from '../store/config-sections.js';

/** Export, import and revert of configuration bundles: one implementation for the routes and `flc config`. */

export type ImportReport =
  | { dryRun: true; diff: Record<SectionName, SectionDiff> }
  | { dryRun: false; snapshotId: number; applied: ApplyReport; diff: Record<SectionName, SectionDiff> };

export async function exportConfig(store: Store, format: BundleFormat): Promise<string> {
  return serializeBundle(await store.configBundle(), format);
}

/**
 * Checks a bundle (a ConfigError lists every problem; nothing is written) and reports the diff;
 * with `apply`, snapshots the current configuration and upserts the bundle in one transaction.
 */
export async function importConfig(
  store: Store,
  text: string,
  format: BundleFormat,
  opts: { apply: boolean; by: string; at: string },
): Promise<ImportReport> {
  const current = await store.configBundle();
  const bundle = validateBundle(
    parseBundleText(text, format),
    current.tiers.map((t) => String(t.tier_name)),
  );
  const diff = diffBundles(current, bundle);
  if (!opts.apply) return { dryRun: true, diff };
  const done = await store.applyBundle(bundle, { by: opts.by, reason: 'import', replace: false, at: opts.at });
  return { dryRun: false, ...done, diff };
}

/** Restores a snapshot exactly (after snapshotting the current configuration); null when there is no such snapshot. */
export async function revertConfig(store: Store, id: number, opts: { by: string; at: string }) {
  const snap = await store.snapshot(id);
  if (!snap) return null;
  const done = await store.applyBundle(snap.bundle, {
    by: opts.by,
    reason: `pre-revert:${id}`,
    replace: true,
    at: opts.at,
  });
  return { preRevertSnapshotId: done.snapshotId, applied: done.applied };
}
