import { randomUUID } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import type { AppDeps } from '../deps.js';
import type { Caller } from '../access/gate.js';
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

/** What a rule-set operation answers: a value, or a refusal with its status (the route words it). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; status: 401 | 403 | 404 | 422; message: string };

const NOT_FOUND = { ok: false as const, status: 404 as const, message: 'No such rule set' };
/** Rule sets belong to accounts: an endpoint override that makes a route public does not change that. */
const SIGN_IN = { ok: false as const, status: 401 as const, message: 'Saved rule sets belong to an account: sign in' };

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

/** The rule-set operations of the REST routes and the tRPC procedures, with their access rules. */
export function ruleSetService(deps: AppDeps) {
  const at = () => new Date(deps.now()).toISOString();
  return {
    async list(
      caller: Caller,
      q: z.infer<typeof ruleSetList>,
    ): Promise<Outcome<{ ruleSets: RuleSetSummary[]; total: number }>> {
      if (!caller.user) return SIGN_IN;
      if (q.all && !(await readsOthers(caller)))
        return {
          ok: false,
          status: 403,
          message: `Listing every user's rule sets needs an administrator with ${READ_OTHERS_PERMISSION}`,
        };
      return { ok: true, value: await deps.store.ruleSets(q.all ? null : caller.user.id, q.limit, q.offset) };
    },
    /** The owner's, or any for an administrator with `users:read`; another user's is as absent as an unknown id. */
    async get(caller: Caller, id: string): Promise<Outcome<RuleSet>> {
      if (!caller.user) return SIGN_IN;
      const found = await deps.store.ruleSet(id);
      if (!found || (found.ownerId !== caller.user.id && !(await readsOthers(caller)))) return NOT_FOUND;
      return { ok: true, value: found };
    },
    async create(caller: Caller, input: z.infer<typeof ruleSetCreate>): Promise<Outcome<RuleSet>> {
      if (!caller.user) return SIGN_IN;
      const owner = caller.user.id;
      if ((await deps.store.ruleSets(owner, 1, 0)).total >= L.perUser)
        return { ok: false, status: 422, message: `At most ${L.perUser} saved rule sets per user` };
      const now = at();
      const value = await deps.store.createRuleSet({
        id: randomUUID(),
        ownerId: owner,
        name: input.name,
        description: input.description ?? null,
        rules: input.rules,
        ruleCount: input.rules.length,
        createdAt: now,
        updatedAt: now,
      });
      return { ok: true, value };
    },
    /** Changes are the owner's only (an administrator reads others' rule sets but does not edit them). */
    async update(caller: Caller, id: string, patch: z.infer<typeof ruleSetPatch>): Promise<Outcome<RuleSet>> {
      if (!caller.user) return SIGN_IN;
      const value = await deps.store.updateRuleSet(id, caller.user.id, patch, at());
      return value ? { ok: true, value } : NOT_FOUND;
    },
    async remove(caller: Caller, id: string): Promise<Outcome<{ id: string }>> {
      if (!caller.user) return SIGN_IN;
      return (await deps.store.deleteRuleSet(id, caller.user.id)) ? { ok: true, value: { id } } : NOT_FOUND;
    },
  };
}
