import type { Selectable } from 'kysely';
import type { SectionName } from './config-sections.js';
import type { AuditLogTable, Database, RoleAssignmentsTable } from './schema.js';

/** An admin role given to a user (the specification's Role assignment); `expires_at` null: never expires. */
export type Assignment = Selectable<RoleAssignmentsTable>;

/** One audit log row as written; the store adds `id`. */
export type AuditEntry = Omit<Selectable<AuditLogTable>, 'id'>;

export interface AuditFilter {
  actor_id?: string;
  action?: string;
  resource_type?: string;
  resource_id?: string;
  status?: string;
  since?: string;
  until?: string;
}

/** A configuration snapshot as listed: without its bundle. */
export type Snapshot = Omit<Selectable<Database['config_snapshots']>, 'bundle'>;

/** What an import or a revert wrote, per section. */
export type ApplyReport = Record<SectionName, { created: number; updated: number; deleted: number; failed: number }>;

/** A stored feature flag: its definition as the routes validated it. */
export type StoredFlag = Record<string, unknown> & { key: string; updated_at: string; updated_by: string };
