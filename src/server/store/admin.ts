import type { Selectable } from 'kysely';
import type { SectionName } from './config-sections.js';
import type { Database } from './schema.js';

/** An admin role given to a user (the specification's Role assignment); `expires_at` null: never expires. */
export type Assignment = Selectable<Database['role_assignments']>;

/** One audit log row as written; the store adds `id`. */
export type AuditEntry = Omit<Selectable<Database['audit_log']>, 'id'>;

/** Audit rows whose columns equal these values, made from `since` to `until`. */
export type AuditFilter = Partial<
  Pick<AuditEntry, 'actor_id' | 'action' | 'resource_type' | 'resource_id' | 'status'>
> & {
  since?: string;
  until?: string;
};

/** A configuration snapshot as listed: without its bundle. */
export type Snapshot = Omit<Selectable<Database['config_snapshots']>, 'bundle'>;

/** What an import or a revert wrote, per section. */
export type ApplyReport = Record<SectionName, { created: number; updated: number; deleted: number; failed: number }>;

/** A stored feature flag: its definition as the routes validated it. */
export type StoredFlag = Record<string, unknown> & { key: string; updated_at: string; updated_by: string };
