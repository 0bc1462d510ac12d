import { randomUUID } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import type { AppDeps } from '../deps.js';
import type { Caller } from '../access/gate.js';
import { refuse } from '../problem.js';
import type { RuleSet, RuleSetSummary } from '../store/service-records.js';

/** Limits of a saved rule set (the request body's 1 MiB bounds its size as a whole). */
export const RULE_SET_LIMITS = { name: 100, description: 1000, rules: 50_000, rule: 4096, perUser: 100 } as const;

const L = RULE_SET_LIMITS;
const rule = z
  .string()
  .max(L.rule, `a rule is at most ${L.rule} characters`)
  .refine((r) => !/[\r\n]/.test(r), 'a rule is one line');
const rules = z.array(rule).max(L.rules, `at most ${L.rules} rules`);
const name = z.string().trim().min(1).max(L.name);
const description = z.string().max(L.description).nullable();

export const ruleSetCreate = z.object({ name, description: description.optional(), rules });
export const ruleSetPatch = z
  .object({ name: name.optional(), description: description.optional(), rules: rules.optional() })
  .refine((p) => p.name !== undefined || p.description !== undefined || p.rules !== undefined, 'nothing to change');
export const ruleSetId = z.object({ id: z.string().min(1).max(100) });
export const ruleSetList = z.object({
  all: z.boolean().default(false),
  limit: z.number().int().min(1).max(100).default(50),
  offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
});

export const ruleSetSummarySchema = z.object({
  id: z.string(),
  ownerId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  ruleCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const ruleSetSchema = ruleSetSummarySchema.extend({ rules: z.array(z.string()) });

const notFound = () => refuse(404, 'No such rule set');
/** Rule sets belong to accounts: an endpoint override that makes a route public does not change that. */
function owner(caller: Caller): string {
  if (!caller.user) refuse(401, 'Saved rule sets belong to an account: sign in');
  return caller.user.id;
}

/** The admin permission that reads other users' rule sets, resolved as the admin routes' are. */
export const READ_OTHERS_PERMISSION = 'users:read';

/** Where a rule-set route reads others' rule sets, for the admin manifest (`GET /api/admin`). */
export const RULE_SET_ADMIN_READS = [
  { method: 'GET', path: '/api/rules?all=true', permission: READ_OTHERS_PERMISSION, summary: "Every user's rule sets" },
  {
    method: 'GET',
    path: '/api/rules/{id}',
    permission: READ_OTHERS_PERMISSION,
    summary: "Another user's rule set (the owner needs no permission)",
  },
] as const;

/**
 * An administrator acting as one (a session, or a key with the `admin` scope) whose live role
 * assignments grant `users:read`: role `admin` alone, without an assignment, reads no one's.
 */
async function readsOthers(caller: Caller): Promise<boolean> {
  const u = caller.user;
  if (!u || u.role !== 'admin' || u.tier !== 'admin' || (caller.key && !caller.key.scopes.includes('admin')))
    return false;
  return (await caller.permissions()).has(READ_OTHERS_PERMISSION);
}

/**
 * The rule-set operations of the REST routes and the tRPC procedures, with their access rules;
 * a refusal is thrown (`refuse`), and each path answers it as it answers any error.
 */
export function ruleSetService(deps: AppDeps) {
  const at = () => new Date(deps.now()).toISOString();
  return {
    async list(caller: Caller, q: z.infer<typeof ruleSetList>): Promise<{ ruleSets: RuleSetSummary[]; total: number }> {
      const user = owner(caller);
      if (q.all && !(await readsOthers(caller)))
        refuse(403, `Listing every user's rule sets needs an administrator with ${READ_OTHERS_PERMISSION}`);
      return deps.store.ruleSets(q.all ? null : user, q.limit, q.offset);
    },
    /** The owner's, or any for an administrator with `users:read`; another user's is as absent as an unknown id. */
    async get(caller: Caller, id: string): Promise<RuleSet> {
      const user = owner(caller);
      const found = await deps.store.ruleSet(id);
      if (!found || (found.ownerId !== user && !(await readsOthers(caller)))) return notFound();
      return found;
    },
    async create(caller: Caller, input: z.infer<typeof ruleSetCreate>): Promise<RuleSet> {
      const user = owner(caller);
      if ((await deps.store.ruleSets(user, 1, 0)).total >= L.perUser)
        refuse(422, `At most ${L.perUser} saved rule sets per user`);
      const now = at();
      return deps.store.createRuleSet({
        id: randomUUID(),
        ownerId: user,
        name: input.name,
        description: input.description ?? null,
        rules: input.rules,
        ruleCount: input.rules.length,
        createdAt: now,
        updatedAt: now,
      });
    },
    /** Changes are the owner's only (an administrator reads others' rule sets but does not edit them). */
    async update(caller: Caller, id: string, patch: z.infer<typeof ruleSetPatch>): Promise<RuleSet> {
      return (await deps.store.updateRuleSet(id, owner(caller), patch, at())) ?? notFound();
    },
    async remove(caller: Caller, id: string): Promise<{ id: string }> {
      return (await deps.store.deleteRuleSet(id, owner(caller))) ? { id } : notFound();
    },
  };
}
