import { TRANSFORMATION_NAMES } from '../transforms/types.js';

/**
 * Rewrites the aliases that the service specification's sample requests use (`url`
 * and `title` on a source, lowercase transformation names) to the schema's keys,
 * returning a warning for each, and drops a `$schema` string. Input that is not an object is returned unchanged.
 */
export function normalizeAliases(raw: unknown): { value: unknown; warnings: string[] } {
  const warnings: string[] = [];
  if (!isRecord(raw)) return { value: raw, warnings };
  const value: Record<string, unknown> = { ...raw };
  // `$schema` names the JSON Schema for editors (dist/configuration.schema.json); it means nothing here.
  if (typeof value.$schema === 'string') delete value.$schema;
  canonicalNames(value, 'transformations', warnings);
  if (Array.isArray(value.sources)) {
    value.sources = value.sources.map((source, i) => {
      if (!isRecord(source)) return source;
      const s: Record<string, unknown> = { ...source };
      renameKey(s, 'url', 'source', `sources[${i}]`, warnings);
      renameKey(s, 'title', 'name', `sources[${i}]`, warnings);
      canonicalNames(s, `sources[${i}].transformations`, warnings);
      return s;
    });
  }
  return { value, warnings };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function renameKey(obj: Record<string, unknown>, alias: string, key: string, path: string, warnings: string[]) {
  if (!(alias in obj) || key in obj) return;
  obj[key] = obj[alias];
  delete obj[alias];
  warnings.push(`${path}.${alias} is deprecated; use ${path}.${key}`);
}

const CANONICAL = new Map<string, string>(TRANSFORMATION_NAMES.map((n) => [n.toLowerCase(), n]));

/** Rewrites `obj.transformations`' lowercase names to the schema's. */
function canonicalNames(obj: Record<string, unknown>, path: string, warnings: string[]) {
  if (!Array.isArray(obj.transformations)) return;
  obj.transformations = obj.transformations.map((name, i) => {
    if (typeof name !== 'string' || (TRANSFORMATION_NAMES as readonly string[]).includes(name)) return name;
    const canonical = CANONICAL.get(name.toLowerCase());
    if (!canonical) return name;
    warnings.push(`${path}[${i}]: "${name}" is deprecated; use "${canonical}"`);
    return canonical;
  });
}
