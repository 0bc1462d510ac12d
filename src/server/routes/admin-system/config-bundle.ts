import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import { refuse } from '../../problem.js';
import { callerOf } from '../../access/gate.js';
import { recordAudit } from '../../audit/trail.js';
import { adminRoute, audited, idParam } from './route.js';
import { BUNDLE_FORMATS, BUNDLE_MEDIA_TYPES } from '../../config-bundle/format.js';
import { exportConfig, importConfig, revertConfig } from '../../config-bundle/service.js';
import { gatewayRefusal } from '../../access/gateway.js';

const format = z.enum(BUNDLE_FORMATS).default('json');
const dryRun = z
  .enum(['true', 'false', '1', '0'])
  .default('true')
  .transform((v) => v === 'true' || v === '1');
const counts = (d: Record<string, { added: unknown[]; removed: unknown[]; changed: unknown[]; unchanged: number }>) =>
  Object.fromEntries(
    Object.entries(d).map(([s, v]) => [
      s,
      { added: v.added.length, removed: v.removed.length, changed: v.changed.length },
    ]),
  );

/** Configuration bundles and snapshots (`/admin/system/config/*`). */
export function registerConfigBundleRoutes(app: OpenAPIHono, deps: AppDeps): void {
  /** Who writes a bundle or snapshot (the caller, by email), when, and with which permissions. */
  const writing = async (c: Parameters<typeof callerOf>[0]) => ({
    by: callerOf(c).user?.email ?? 'unknown',
    at: new Date(deps.now()).toISOString(),
    writer: await callerOf(c).permissions(),
  });

  adminRoute(app, {
    method: 'get',
    path: '/admin/system/config/export',
    ...audited('config:read', 'config.export', 'config_bundle'),
    summary: 'The configuration as a bundle (a file download)',
    query: z.object({ format }),
    handler: async (c, { query }) => {
      const text = await exportConfig(deps.store, query.format);
      return c.body(text, 200, {
        'content-type': `${BUNDLE_MEDIA_TYPES[query.format as keyof typeof BUNDLE_MEDIA_TYPES]}; charset=utf-8`,
        'content-disposition': `attachment; filename="flc-config.${query.format}"`,
      });
    },
  });
  adminRoute(app, {
    method: 'post',
    path: '/admin/system/config/import',
    ...audited('config:write', 'config.import', 'config_bundle'),
    // A dry run changes nothing: the handler asks the gateway for applying imports only.
    gateway: false,
    summary: 'Import a bundle: a dry run (the diff) unless dryRun=false',
    query: z.object({ format, dryRun }),
    failures: {
      403: 'The bundle changes a section the caller may not change (each named)',
      422: 'A malformed bundle (every problem listed)',
    },
    handler: async (c, { query }) => {
      if (!query.dryRun) {
        const refusal = await gatewayRefusal(c, deps.gateway);
        if (refusal) refuse(403, refusal);
      }
      const report = await importConfig(deps.store, await c.req.text(), query.format, {
        ...(await writing(c)),
        apply: !query.dryRun,
        routes: c.var.guards.routes(),
      });
      if (report.dryRun) {
        // A dry run writes nothing but its audit row, which says it was one.
        await recordAudit(c, deps, { resourceId: null, metadata: { dryRun: true, diff: counts(report.diff) } });
        return c.json({ success: true, dryRun: true, diff: report.diff });
      }
      await recordAudit(c, deps, {
        resourceId: String(report.snapshotId),
        newValues: report.applied,
        metadata: { snapshotId: report.snapshotId, diff: counts(report.diff) },
      });
      return c.json({ success: true, dryRun: false, snapshotId: report.snapshotId, applied: report.applied });
    },
  });
  adminRoute(app, {
    method: 'get',
    path: '/admin/system/config/snapshots',
    ...audited('config:read', 'config.snapshot_list', 'config_snapshot'),
    summary: 'Configuration snapshots, newest first',
    handler: async (c) => c.json({ success: true, snapshots: await deps.store.snapshots() }),
  });
  adminRoute(app, {
    method: 'get',
    path: '/admin/system/config/snapshots/{id}',
    ...audited('config:read', 'config.snapshot_read', 'config_snapshot'),
    summary: 'One snapshot with its bundle',
    params: idParam,
    failures: { 404: 'No such snapshot' },
    handler: async (c, { params }) => {
      const snapshot = await deps.store.snapshot(Number(params.id));
      if (!snapshot) refuse(404, `No snapshot ${params.id}`);
      return c.json({ success: true, snapshot });
    },
  });
  adminRoute(app, {
    method: 'post',
    path: '/admin/system/config/snapshots/{id}/revert',
    ...audited('config:write', 'config.revert', 'config_snapshot'),
    summary: 'Restore a snapshot (the current configuration is snapshotted first)',
    params: idParam,
    failures: { 403: 'The snapshot changes a section the caller may not change', 404: 'No such snapshot' },
    handler: async (c, { params }) => {
      const done = await revertConfig(deps.store, Number(params.id), await writing(c));
      if (!done) refuse(404, `No snapshot ${params.id}`);
      await recordAudit(c, deps, {
        newValues: done.applied,
        metadata: { preRevertSnapshotId: done.preRevertSnapshotId },
      });
      return c.json({ success: true, ...done });
    },
  });
}
