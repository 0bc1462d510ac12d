import type { Kysely } from 'kysely';
import { type ConfigRecord, type SectionName, sectionSpec } from '../config-sections.js';
import type { Db } from './db.js';

/**
 * Reads and writes of the configuration tables by their section descriptor (`config-sections.ts`),
 * one generic set of queries instead of seven copies. The table and column names come only from
 * those descriptors, never from a request.
 */
// biome-ignore lint/suspicious/noExplicitAny: the table is chosen by a descriptor, not known to the type system
const loose = (db: Db) => db as unknown as Kysely<any>;

const INTEGER = new Set(['id', 'order_rank', 'rate_limit', 'is_active', 'is_public']);

/** A stored row as a record: JSON decoded, integers as numbers. */
export function decode(section: SectionName, row: Record<string, unknown>): ConfigRecord {
  const spec = sectionSpec(section);
  const out: ConfigRecord = {};
  for (const [k, v] of Object.entries(row)) {
    if (v !== null && spec.json.includes(k)) out[k] = JSON.parse(String(v));
    else if (v !== null && INTEGER.has(k)) out[k] = Number(v);
    else out[k] = v;
  }
  return out;
}

/** A record's columns as stored: JSON encoded, booleans as 0/1; only the section's own columns. */
export function encode(section: SectionName, values: ConfigRecord): Record<string, unknown> {
  const spec = sectionSpec(section);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || !spec.columns.includes(k)) continue;
    if (v !== null && spec.json.includes(k)) out[k] = JSON.stringify(v);
    else if (typeof v === 'boolean') out[k] = v ? 1 : 0;
    else out[k] = v;
  }
  return out;
}

type Where = Record<string, unknown>;

function filtered(db: Db, section: SectionName, where: Where) {
  let q = loose(db).selectFrom(sectionSpec(section).table).selectAll();
  for (const [k, v] of Object.entries(where)) q = q.where(k, '=', v);
  return q;
}

/** Every row of a section (inactive ones too), in natural-key order. */
export async function listRows(db: Db, section: SectionName, where: Where = {}): Promise<ConfigRecord[]> {
  let q = filtered(db, section, where);
  for (const k of sectionSpec(section).keys) q = q.orderBy(k);
  return (await q.execute()).map((r) => decode(section, r));
}

export async function getRow(db: Db, section: SectionName, where: Where): Promise<ConfigRecord | null> {
  const row = await filtered(db, section, where).executeTakeFirst();
  return row ? decode(section, row) : null;
}

export async function insertRow(db: Db, section: SectionName, values: ConfigRecord, at: string) {
  const spec = sectionSpec(section);
  const stamps = spec.stamped ? { created_at: at, updated_at: at } : {};
  const row = await loose(db)
    .insertInto(spec.table)
    .values({ ...encode(section, values), ...(values.id != null ? { id: values.id } : {}), ...stamps })
    .returningAll()
    .executeTakeFirstOrThrow();
  return decode(section, row);
}

/** Changes the row(s) matching `where`; the row before and after, or null when there is none. */
export async function updateRow(db: Db, section: SectionName, where: Where, patch: ConfigRecord, at: string) {
  const before = await getRow(db, section, where);
  if (!before) return null;
  const values = { ...encode(section, patch), ...(sectionSpec(section).stamped ? { updated_at: at } : {}) };
  if (Object.keys(values).length > 0) {
    let q = loose(db).updateTable(sectionSpec(section).table).set(values);
    for (const [k, v] of Object.entries(where)) q = q.where(k, '=', v);
    await q.execute();
  }
  return { before, after: (await getRow(db, section, where)) as ConfigRecord };
}

/** Deletes the row matching `where` (a role with its assignments); the row it was, or null. */
export async function deleteRow(db: Db, section: SectionName, where: Where): Promise<ConfigRecord | null> {
  const before = await getRow(db, section, where);
  if (!before) return null;
  if (section === 'roles')
    await db.deleteFrom('role_assignments').where('role_name', '=', String(before.role_name)).execute();
  let q = loose(db).deleteFrom(sectionSpec(section).table);
  for (const [k, v] of Object.entries(where)) q = q.where(k, '=', v);
  await q.execute();
  return before;
}
