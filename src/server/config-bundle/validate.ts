import { z } from 'zod';
import { ConfigError, type ConfigIssue } from '../../core/errors/index.js';
import { type Bundle, naturalKey, SECTION_NAMES, type SectionName } from '../store/config-sections.js';
import { PERMISSIONS } from '../routes/admin-system/permissions.js';
import { badWindow } from '../routes/admin-system/announcements.js';

/** The bundle's schema: every section a list of rows; volatile `id`/`created_at`/`updated_at` accepted and ignored. */

const flag = z
  .union([z.boolean(), z.literal(0), z.literal(1)])
  .transform((v) => (v === true || v === 1 ? 1 : 0))
  .default(1);
const text = z.string().default('');
const when = z.iso.datetime({ offset: true }).nullable().default(null);
const volatile = {
  id: z.number().int().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
};
/** An endpoint override's path (a prefix when it ends in `/*`) and method (`*`: any), here and in its route. */
export const overridePath = z.string().regex(/^\/\S*$/, 'a path starting with /, optionally ending in /*');
export const overrideMethod = z
  .string()
  .regex(/^(\*|[A-Za-z]+)$/)
  .transform((m) => m.toUpperCase())
  .default('*');
/** A section's row: its own fields, then `is_active` (every section has it). */
const row = <T extends z.ZodRawShape>(shape: T) => z.strictObject({ ...volatile, ...shape, is_active: flag });
/** The name and description every section but endpoints and announcements shows. */
const labels = { display_name: z.string().min(1), description: text };

const ROW_SCHEMAS: Record<SectionName, z.ZodType> = {
  tiers: row({
    tier_name: z.string().min(1),
    order_rank: z.number().int().min(0),
    rate_limit: z.number().int().min(0),
    ...labels,
    features: z.record(z.string(), z.unknown()).default({}),
  }),
  scopes: row({
    scope_name: z.string().min(1),
    ...labels,
    required_tier: z.string().min(1),
  }),
  endpoints: row({
    path_pattern: overridePath,
    method: overrideMethod,
    required_tier: z.string().min(1).nullable().default(null),
    required_scopes: z.array(z.string()).nullable().default(null),
    is_public: flag.default(0),
  }),
  announcements: row({
    id: z.number().int().positive().optional(),
    title: z.string().min(1),
    body: text,
    severity: z.enum(['info', 'warning', 'error', 'success']).default('info'),
    active_from: when,
    active_until: when,
    created_by: text,
  }),
  roles: row({
    role_name: z.string().min(1),
    ...labels,
    permissions: z.array(z.enum(PERMISSIONS)).min(1, 'a role needs at least one permission'),
  }),
  user_groups: row({
    group_name: z.string().min(1),
    ...labels,
  }),
  api_groups: row({
    group_name: z.string().min(1),
    ...labels,
    scopes: z.array(z.string()).default([]),
  }),
};

const BUNDLE = z.strictObject(
  Object.fromEntries(SECTION_NAMES.map((s) => [s, z.array(ROW_SCHEMAS[s]).default([])])) as Record<
    SectionName,
    z.ZodDefault<z.ZodArray<z.ZodType>>
  >,
);

/**
 * A bundle from a parsed document, with every problem found (wrong types, unknown sections or
 * fields, a role without permissions, duplicate keys, a tier nobody defines) in one ConfigError.
 * `knownTiers`: the tiers the store has, which scopes and overrides may also name.
 */
export function validateBundle(doc: unknown, knownTiers: readonly string[]): Bundle {
  const parsed = BUNDLE.safeParse(doc ?? {});
  if (!parsed.success) {
    const issues: ConfigIssue[] = parsed.error.issues.map((i) => ({
      path: z.core.toDotPath(i.path),
      message:
        i.code === 'unrecognized_keys'
          ? `unknown ${i.path.length === 0 ? 'section' : 'field'}: ${i.keys.join(', ')}`
          : i.message,
    }));
    throw new ConfigError(issues, { file: 'the bundle' });
  }
  const bundle = parsed.data as Bundle;
  const issues: ConfigIssue[] = [];
  for (const s of SECTION_NAMES) {
    const seen = new Set<string>();
    bundle[s].forEach((r, i) => {
      if (s === 'announcements' && r.id === undefined) return;
      const key = naturalKey(s, r);
      if (seen.has(key)) issues.push({ path: `${s}[${i}]`, message: `a second row with the key ${key}` });
      seen.add(key);
    });
  }
  const tiers = new Set([...knownTiers, ...bundle.tiers.map((t) => String(t.tier_name))]);
  for (const s of ['scopes', 'endpoints'] as const)
    bundle[s].forEach((r, i) => {
      if (r.required_tier != null && !tiers.has(String(r.required_tier)))
        issues.push({ path: `${s}[${i}].required_tier`, message: `no tier ${String(r.required_tier)}` });
    });
  bundle.announcements.forEach((r, i) => {
    const bad = badWindow(r.active_from, r.active_until);
    if (bad) issues.push({ path: `announcements[${i}]`, message: bad });
  });
  if (issues.length > 0) throw new ConfigError(issues, { file: 'the bundle' });
  return bundle;
}
