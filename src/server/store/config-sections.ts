/**
 * The tables a configuration bundle carries, as data: each section's table, natural key, the
 * columns it holds (volatile `id`, `created_at` and `updated_at` aside) and which of them are JSON.
 * The admin routes, the bundle export/import and the snapshots all go through these descriptors.
 */
export interface SectionSpec {
  /** The table, where it is not named as the section is. */
  table?: 'endpoint_overrides';
  /** The natural key (the specification's: `id` for announcements). */
  keys: readonly string[];
  /** Every column a bundle row holds, in the order a bundle shows them. */
  columns: readonly string[];
  /** Columns kept as JSON text in the store and as values in records and bundles (none unless said). */
  json?: readonly string[];
  /** false: the table has no `created_at` / `updated_at`. */
  stamped?: false;
}

/** The sections in an order their references allow writing them in (tiers before the scopes naming them). */
export const SECTIONS = {
  tiers: {
    keys: ['tier_name'],
    columns: ['tier_name', 'order_rank', 'rate_limit', 'display_name', 'description', 'features', 'is_active'],
    json: ['features'],
  },
  scopes: {
    keys: ['scope_name'],
    columns: ['scope_name', 'display_name', 'description', 'required_tier', 'is_active'],
    stamped: false,
  },
  endpoints: {
    table: 'endpoint_overrides',
    keys: ['path_pattern', 'method'],
    columns: ['path_pattern', 'method', 'required_tier', 'required_scopes', 'is_public', 'is_active'],
    json: ['required_scopes'],
    stamped: false,
  },
  announcements: {
    keys: ['id'],
    columns: ['id', 'title', 'body', 'severity', 'active_from', 'active_until', 'is_active', 'created_by'],
  },
  roles: {
    keys: ['role_name'],
    columns: ['role_name', 'display_name', 'description', 'permissions', 'is_active'],
    json: ['permissions'],
  },
  user_groups: {
    keys: ['group_name'],
    columns: ['group_name', 'display_name', 'description', 'is_active'],
  },
  api_groups: {
    keys: ['group_name'],
    columns: ['group_name', 'display_name', 'description', 'scopes', 'is_active'],
    json: ['scopes'],
  },
} as const satisfies Record<string, SectionSpec>;

export type SectionName = keyof typeof SECTIONS;
export const SECTION_NAMES = Object.keys(SECTIONS) as SectionName[];

/** A section's descriptor with what it leaves unsaid filled in. */
export function sectionSpec(section: SectionName) {
  const spec: SectionSpec = SECTIONS[section];
  return { ...spec, table: spec.table ?? section, json: spec.json ?? [], stamped: spec.stamped ?? true };
}

/** A row as records and bundles show it: JSON columns decoded, flags 0/1. */
export type ConfigRecord = Record<string, unknown>;

/** A configuration bundle: every section's rows, natural-key order. */
export type Bundle = Record<SectionName, ConfigRecord[]>;

/** The natural key of a row, as one string. */
export function naturalKey(section: SectionName, row: ConfigRecord): string {
  return JSON.stringify(SECTIONS[section].keys.map((k) => row[k] ?? null));
}

/** The row reduced to the columns a bundle holds, in their order (what export writes and diffs compare). */
export function bundleRow(section: SectionName, row: ConfigRecord): ConfigRecord {
  return Object.fromEntries(SECTIONS[section].columns.map((c) => [c, row[c] ?? null]));
}

/** JSON with object keys sorted: equal values give equal text whatever order their keys came in. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v as object)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}
