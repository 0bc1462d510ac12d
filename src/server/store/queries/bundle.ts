import { sql } from 'kysely';
import type { ApplyReport, Snapshot } from '../admin.js';
import {
  type Bundle,
  bundleRow,
  canonical,
  type ConfigRecord,
  naturalKey,
  SECTION_NAMES,
  SECTIONS,
  type SectionName,
} from '../config-sections.js';
import type { Engine } from '../migrations/columns.js';
import { deleteRow, insertRow, listRows, updateRow } from './config-tables.js';
import type { Db } from './db.js';

/** Configuration bundles: read whole, applied in one transaction, snapshotted. */

export async function readBundle(db: Db): Promise<Bundle> {
  const bundle = {} as Bundle;
  for (const s of SECTION_NAMES) bundle[s] = (await listRows(db, s)).map((r) => bundleRow(s, r));
  return bundle;
}

const keyWhere = (section: SectionName, row: ConfigRecord) =>
  Object.fromEntries(SECTIONS[section].keys.map((k) => [k, row[k]]));

/**
 * Writes a bundle in the caller's transaction: rows are created or updated by natural key; with
 * `replace` the rows the bundle lacks are deleted afterwards (in reverse order, so that nothing
 * still names a deleted tier), with the assignments of a deleted role.
 */
export async function writeBundle(
  db: Db,
  engine: Engine,
  bundle: Bundle,
  replace: boolean,
  at: string,
): Promise<ApplyReport> {
  const report = {} as ApplyReport;
  const current = await readBundle(db);
  for (const s of SECTION_NAMES) {
    const r = { created: 0, updated: 0, deleted: 0, failed: 0 };
    report[s] = r;
    const existing = new Map(current[s].map((row) => [naturalKey(s, row), canonical(row)]));
    for (const raw of bundle[s]) {
      const row = bundleRow(s, raw);
      const seen = existing.get(naturalKey(s, row));
      if (seen === undefined) {
        await insertRow(db, s, row, at);
        r.created += 1;
      } else if (seen !== canonical(row)) {
        await updateRow(db, s, keyWhere(s, row), row, at);
        r.updated += 1;
      }
    }
  }
  if (replace) {
    for (const s of [...SECTION_NAMES].reverse()) {
      const wanted = new Set(bundle[s].map((row) => naturalKey(s, row)));
      for (const row of current[s]) {
        if (wanted.has(naturalKey(s, row))) continue;
        await deleteRow(db, s, keyWhere(s, row));
        report[s].deleted += 1;
      }
    }
  }
  // Announcements keep their ids (their natural key); PostgreSQL's sequence must move past them.
  if (engine === 'postgres' && report.announcements.created > 0) {
    const max = sql`(select max(id) from announcements)`;
    await sql`select setval(pg_get_serial_sequence('announcements', 'id'), ${max})`.execute(db);
  }
  return report;
}

export async function createSnapshot(db: Db, by: string, reason: string, bundle: Bundle, at: string): Promise<number> {
  const row = await db
    .insertInto('config_snapshots')
    .values({ created_at: at, created_by: by, reason, bundle: JSON.stringify(bundle) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export function snapshots(db: Db): Promise<Snapshot[]> {
  return db
    .selectFrom('config_snapshots')
    .select(['id', 'created_at', 'created_by', 'reason'])
    .orderBy('id', 'desc')
    .execute();
}

export async function snapshot(db: Db, id: number) {
  const row = await db.selectFrom('config_snapshots').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return null;
  return { ...row, bundle: JSON.parse(row.bundle) as Bundle };
}
