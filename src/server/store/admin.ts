import type { Selectable } from 'kysely';
import type { Bundle, ConfigRecord, SectionName } from './config-sections.js';
import type { AuditLogTable, RoleAssignmentsTable } from './schema.js';

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

export interface Snapshot {
  id: number;
  created_at: string;
  created_by: string;
  reason: string;
}

/** What an import or a revert wrote, per section. */
export type ApplyReport = Record<SectionName, { created: number; updated: number; deleted: number; failed: number }>;

/** A stored feature flag: its definition as the routes validated it. */
export type StoredFlag = Record<string, unknown> & { key: string; updated_at: string; updated_by: string };

/**
 * The admin system's part of the store: configuration rows by section, role assignments, the
 * append-only audit log, feature flags, configuration snapshots and data-subject requests.
 * Every change of several rows is one transaction; changes to what the access gate reads bump
 * `accessGeneration`.
 */
export interface AdminStore {
  configRows(section: SectionName, where?: Record<string, unknown>): Promise<ConfigRecord[]>;
  createConfigRow(section: SectionName, values: ConfigRecord, at: string): Promise<ConfigRecord>;
  /** The row before and after, or null when none matches `where`. */
  updateConfigRow(
    section: SectionName,
    where: Record<string, unknown>,
    patch: ConfigRecord,
    at: string,
  ): Promise<{ before: ConfigRecord; after: ConfigRecord } | null>;
  /** The deleted row, or null. Deleting a role removes its assignments in the same transaction. */
  deleteConfigRow(section: SectionName, where: Record<string, unknown>): Promise<ConfigRecord | null>;

  assignments(filter: { identity_user_id?: string; role_name?: string }): Promise<Assignment[]>;
  /** Assigns, or updates the existing assignment of that user and role. */
  assign(a: Omit<Assignment, 'id'>): Promise<{ before: Assignment | null; after: Assignment }>;
  /** The revoked assignment, or null when there was none. */
  revoke(userId: string, role: string): Promise<Assignment | null>;

  appendAudit(entry: AuditEntry): Promise<void>;
  /** Newest first. */
  audit(
    filter: AuditFilter,
    limit: number,
    offset: number,
  ): Promise<{ logs: (AuditEntry & { id: number })[]; total: number }>;

  flags(): Promise<StoredFlag[]>;
  flag(key: string): Promise<StoredFlag | null>;
  /** Creates or replaces a flag. */
  putFlag(flag: StoredFlag): Promise<void>;
  deleteFlag(key: string): Promise<boolean>;

  /** The current configuration as a bundle (one read transaction). */
  configBundle(): Promise<Bundle>;
  /**
   * One transaction: snapshots the current configuration (`reason`), then writes the bundle:
   * upserts by natural key, and with `replace` also deletes rows the bundle lacks.
   */
  applyBundle(
    bundle: Bundle,
    opts: { by: string; reason: string; replace: boolean; at: string },
  ): Promise<{ snapshotId: number; applied: ApplyReport }>;
  snapshots(): Promise<Snapshot[]>;
  snapshot(id: number): Promise<(Snapshot & { bundle: Bundle }) | null>;

  groupMemberships(userId: string): Promise<{ group_name: string; added_at: string }[]>;
  addGroupMember(group: string, userId: string, at: string): Promise<void>;
  /** Removes the user's role assignments and group memberships (one transaction); how many of each. */
  eraseAdminData(userId: string): Promise<{ role_assignments: number; group_memberships: number }>;
  /** Audit rows naming the user as actor or resource, newest first, and how many there are. */
  auditOfUser(userId: string, limit: number): Promise<{ logs: (AuditEntry & { id: number })[]; total: number }>;
}
