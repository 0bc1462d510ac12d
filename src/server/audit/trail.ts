import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AuditEntry } from '../store/admin.js';
import { clientAddress } from '../client-address.js';
import { callerOf, identityOf } from '../access/gate.js';

/** What a route tells the audit log about a change it made. */
export interface AuditDetails {
  resourceId?: string | null;
  oldValues?: unknown;
  newValues?: unknown;
  status?: AuditEntry['status'];
  metadata?: unknown;
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

async function write(c: Context, deps: AppDeps, d: AuditDetails, log: (m: string) => void): Promise<void> {
  const route = c.var.route?.audit;
  const identity = identityOf(c);
  const user = callerOf(c).user ?? (identity && 'user' in identity ? identity.user : null);
  c.set('auditWritten', true);
  try {
    await deps.store.appendAudit({
      actor_id: user?.id ?? null,
      actor_email: user?.email ?? null,
      action: route?.action ?? `${c.req.method} ${c.req.path}`,
      resource_type: route?.resource ?? 'unknown',
      resource_id: d.resourceId === undefined ? lastParam(c) : d.resourceId,
      old_values: json(d.oldValues),
      new_values: json(d.newValues),
      ip_address: clientAddress(c) || null,
      user_agent: c.req.header('user-agent') ?? null,
      status: d.status ?? 'success',
      metadata: json(d.metadata),
      created_at: new Date(deps.now()).toISOString(),
    });
  } catch (err) {
    // The change itself is done; a lost audit row is logged loudly rather than reported as the change failing.
    log(`audit: cannot write ${route?.action ?? c.req.path}: ${(err as Error).message}`);
  }
}

/** The value of the route path's last parameter (the resource's id), if it has one. */
function lastParam(c: Context): string | null {
  const name = [...(c.var.route?.path ?? '').matchAll(/:(\w+)/g)].at(-1)?.[1];
  return name ? (c.req.param(name) ?? null) : null;
}

/**
 * Records one audit row for the current request (a route calls it with the values it changed); a
 * row that cannot be written is logged as the trail's own are.
 */
export function recordAudit(c: Context, deps: AppDeps, d: AuditDetails) {
  return write(c, deps, d, c.var.auditLog ?? ((m) => console.error(m)));
}

/**
 * Wraps an audited route's access gate and handler: a refusal (401, 403) is audited as
 * `denied`; a change the route did not audit itself gets its row after the response (`failure`
 * for an error status), so that every change and every refused attempt leaves exactly one row.
 */
export function auditTrail(deps: AppDeps, log: (m: string) => void): MiddlewareHandler {
  return async (c, next) => {
    c.set('auditLog', log);
    await next();
    if (c.get('auditWritten')) return;
    const status = c.res.status;
    if (status === 401 || status === 403) await write(c, deps, { status: 'denied' }, log);
    else if (c.req.method !== 'GET' && c.req.method !== 'HEAD')
      await write(c, deps, { status: status >= 400 ? 'failure' : 'success' }, log);
  };
}
