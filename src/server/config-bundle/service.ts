import type { ApplyReport } from '../store/admin.js';
import type { Store } from '../store/store.js';
import { diffBundles, type SectionDiff } from './diff.js';
import { type BundleFormat, parseBundleText, serializeBundle } from './format.js';
import { validateBundle } from './validate.js';
import { type Bundle, bundleRow, naturalKey, type SectionName } from '../store/config-sections.js';
import { ConfigError, type ConfigIssue, ForbiddenError } from '../../core/errors/index.js';
import { overrideRefusal } from '../access/override-scope.js';
import type { DescribedRoute } from '../routing/route.js';
import { type Grantor, grantRefusal, rolePermissions } from '../access/privilege.js';

/** Export, import and revert of configuration bundles: one implementation for the routes and `flc config`. */

export type ImportReport =
  | { dryRun: true; diff: Record<SectionName, SectionDiff> }
  | { dryRun: false; snapshotId: number; applied: ApplyReport; diff: Record<SectionName, SectionDiff> };

/**
 * The permission that writing each section directly needs: roles are `roles:write` (as
 * `PATCH /admin/system/roles/:id`), API groups carry scopes and so grant (`roles:assign`); the
 * rest is configuration (`config:write`).
 */
export const SECTION_PERMISSIONS: Readonly<Record<SectionName, string>> = {
  tiers: 'config:write',
  scopes: 'config:write',
  endpoints: 'config:write',
  announcements: 'config:write',
  roles: 'roles:write',
  user_groups: 'config:write',
  api_groups: 'roles:assign',
};

/**
 * Refuses, before anything is written, a bundle that changes a section the writer could not
 * change directly; the error names every such section and the permission it needs.
 */
function checkSections(diff: Record<SectionName, SectionDiff>, replace: boolean, writer: Grantor): void {
  if (writer === 'all') return;
  const refused = (Object.keys(diff) as SectionName[]).filter((s) => {
    const d = diff[s];
    const touched = d.added.length + d.changed.length + (replace ? d.removed.length : 0) > 0;
    return touched && !writer.has(SECTION_PERMISSIONS[s]);
  });
  if (refused.length > 0)
    throw new ForbiddenError(
      `Nothing was applied: the bundle changes ${refused
        .map((s) => `${s} (needs ${SECTION_PERMISSIONS[s]})`)
        .join(', ')}, which this caller may not change`,
    );
  // No grant above the grantor, as on the role routes: each role added, changed or removed carries
  // (before and after) only permissions the writer holds.
  const r = diff.roles;
  const touched = [...r.added, ...r.changed.flatMap((c) => [c.before, c.after]), ...(replace ? r.removed : [])];
  for (const row of touched) {
    const refusal = grantRefusal(writer, `Role ${String(row.role_name)}`, rolePermissions(row));
    if (refusal) throw new ForbiddenError(`Nothing was applied: ${refusal}`);
  }
}

/**
 * Refuses (422, every problem listed) a bundle adding or changing an endpoint override that the
 * override route would refuse: one reaching no route, or only routes whose rule no override changes.
 */
function checkOverrides(bundle: Bundle, diff: Record<SectionName, SectionDiff>, routes: readonly DescribedRoute[]) {
  const touched = new Set([
    ...diff.endpoints.added.map((r) => naturalKey('endpoints', r)),
    ...diff.endpoints.changed.map((c) => naturalKey('endpoints', c.after)),
  ]);
  const issues: ConfigIssue[] = [];
  bundle.endpoints.forEach((row, i) => {
    if (!touched.has(naturalKey('endpoints', bundleRow('endpoints', row)))) return;
    const refusal = overrideRefusal(routes, String(row.path_pattern), String(row.method));
    if (refusal) issues.push({ path: `endpoints[${i}]`, message: refusal });
  });
  if (issues.length > 0) throw new ConfigError(issues, { file: 'the bundle' });
}

export async function exportConfig(store: Store, format: BundleFormat): Promise<string> {
  return serializeBundle(await store.configBundle(), format);
}

/**
 * Checks a bundle (a ConfigError lists every problem; nothing is written) and reports the diff;
 * with `apply`, checks the writer's permission for each changed section, then snapshots the
 * current configuration and upserts the bundle in one transaction.
 */
export async function importConfig(
  store: Store,
  text: string,
  format: BundleFormat,
  opts: {
    apply: boolean;
    by: string;
    at: string;
    writer: Grantor;
    /** The server's routes: each override the bundle adds or changes is checked as the override route checks it. */
    routes?: readonly DescribedRoute[];
  },
): Promise<ImportReport> {
  const current = await store.configBundle();
  const bundle = validateBundle(
    await parseBundleText(text, format, opts.by),
    current.tiers.map((t) => String(t.tier_name)),
  );
  const diff = diffBundles(current, bundle);
  if (opts.routes) checkOverrides(bundle, diff, opts.routes);
  if (!opts.apply) return { dryRun: true, diff };
  checkSections(diff, false, opts.writer);
  const done = await store.applyBundle(bundle, { by: opts.by, reason: 'import', replace: false, at: opts.at });
  return { dryRun: false, ...done, diff };
}

/**
 * Restores a snapshot exactly (after snapshotting the current configuration), each section it
 * changes checked as an import's are; null when there is no such snapshot.
 */
export async function revertConfig(store: Store, id: number, opts: { by: string; at: string; writer: Grantor }) {
  const snap = await store.snapshot(id);
  if (!snap) return null;
  checkSections(diffBundles(await store.configBundle(), snap.bundle), true, opts.writer);
  const done = await store.applyBundle(snap.bundle, {
    by: opts.by,
    reason: `pre-revert:${id}`,
    replace: true,
    at: opts.at,
  });
  return { preRevertSnapshotId: done.snapshotId, applied: done.applied };
}
