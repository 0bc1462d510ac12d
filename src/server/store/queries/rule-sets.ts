import type { RuleSet, RuleSetPatch } from '../service-records.js';
import { camel, snake } from '../rows.js';
import { countOf, type Db } from './db.js';

/** Saved rule sets; the rules are one JSON array of lines. */

const SUMMARY = ['id', 'owner_id', 'name', 'description', 'rule_count', 'created_at', 'updated_at'] as const;

export async function createRuleSet(db: Db, s: RuleSet): Promise<RuleSet> {
  await db
    .insertInto('rule_sets')
    .values({ ...snake(s), rules: JSON.stringify(s.rules), rule_count: s.rules.length })
    .execute();
  return { ...s, ruleCount: s.rules.length };
}

export async function ruleSets(db: Db, ownerId: string | null, limit: number, offset: number) {
  const q = ownerId === null ? db.selectFrom('rule_sets') : db.selectFrom('rule_sets').where('owner_id', '=', ownerId);
  const list = await q.select(SUMMARY).orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute();
  return { ruleSets: list.map(camel), total: await countOf(q) };
}

export async function ruleSet(db: Db, id: string): Promise<RuleSet | null> {
  const row = await db.selectFrom('rule_sets').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? { ...camel(row), rules: JSON.parse(row.rules) as string[] } : null;
}

/** In the caller's transaction: the change, then the row as it now is. */
export async function updateRuleSet(db: Db, id: string, ownerId: string, patch: RuleSetPatch, at: string) {
  const r = await db
    .updateTable('rule_sets')
    .set({
      updated_at: at,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.rules !== undefined ? { rules: JSON.stringify(patch.rules), rule_count: patch.rules.length } : {}),
    })
    .where('id', '=', id)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 0 ? null : ruleSet(db, id);
}

export async function deleteRuleSet(db: Db, id: string, ownerId: string): Promise<boolean> {
  const r = await db.deleteFrom('rule_sets').where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
