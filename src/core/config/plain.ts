import type { Configuration, SourceConfig } from './schema.js';
import { TRANSFORMATION_NAMES } from '../transforms/types.js';
import { validatorsIn } from '../transforms/registry.js';

/**
 * The configuration schema's verdict on a configuration it certainly accepts, without the
 * schema: `configurationSchema.parse(value)` when `value` is a plain object of the schema's
 * keys and types (after the aliases are normalised), else null, and the caller asks the
 * schema, which says what is wrong. Building the schema library and its schemas is a large part
 * of a short CLI run; a configuration that needs no error message need not pay it. Tests check the
 * two agree, key order included, on generated configurations valid and not.
 */
export function plainConfiguration(value: unknown): Configuration | null {
  if (!isPlainObject(value) || !hasOnly(value, TOP_KEYS)) return null;
  if (!isName(value.name) || !optional(value, ['description', 'homepage', 'license', 'version'], isString)) return null;
  const sources = value.sources;
  if (!Array.isArray(sources) || sources.length === 0) return null;
  const parsed: SourceConfig[] = [];
  for (const source of sources) {
    const s = plainSource(source);
    if (s === null) return null;
    parsed.push(s);
  }
  if (!optionalTransformations(value.transformations) || !optional(value, PATTERN_KEYS, isStrings)) return null;
  if (value.onSourceError !== undefined && value.onSourceError !== 'fail' && value.onSourceError !== 'skip')
    return null;
  // The schema's refinement: a validator at the top level and in a source is an error.
  if (
    validatorsIn(value.transformations as string[] | undefined).length > 0 &&
    parsed.some((s) => validatorsIn(s.transformations).length > 0)
  ) {
    return null;
  }
  return copyKeys(value, TOP_KEYS, { sources: parsed }) as Configuration;
}

/** The schema's keys in its order, which is the order of the parsed object's keys. */
const TOP_KEYS = [
  'name',
  'description',
  'homepage',
  'license',
  'version',
  'sources',
  'transformations',
  'exclusions',
  'exclusions_sources',
  'inclusions',
  'inclusions_sources',
  'onSourceError',
];
const SOURCE_KEYS = [
  'source',
  'name',
  'type',
  'transformations',
  'exclusions',
  'exclusions_sources',
  'inclusions',
  'inclusions_sources',
];
const PATTERN_KEYS = ['exclusions', 'exclusions_sources', 'inclusions', 'inclusions_sources'];
const NAMES = new Set<string>(TRANSFORMATION_NAMES);

function plainSource(source: unknown): SourceConfig | null {
  if (!isPlainObject(source) || !hasOnly(source, SOURCE_KEYS)) return null;
  if (!isName(source.source) || !optional(source, ['name'], isName)) return null;
  if (source.type !== undefined && source.type !== 'adblock' && source.type !== 'hosts') return null;
  if (!optionalTransformations(source.transformations) || !optional(source, PATTERN_KEYS, isStrings)) return null;
  return copyKeys(source, SOURCE_KEYS, {}) as SourceConfig;
}

/** An object literal's kind of object (what JSON, YAML and TOML parsers give), nothing else. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Own string keys only among `keys`, none of them holding `undefined`. Symbol keys (the TOML
 * parser marks its tables with some) are ignored, as the schema ignores them.
 */
function hasOnly(v: Record<string, unknown>, keys: readonly string[]): boolean {
  for (const k of Object.keys(v)) if (!keys.includes(k) || v[k] === undefined) return false;
  return true;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isName = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** A plain array of strings (no holes, no extra properties to wonder about). */
function isStrings(v: unknown): v is string[] {
  if (!Array.isArray(v) || Object.getPrototypeOf(v) !== Array.prototype) return false;
  for (let i = 0; i < v.length; i += 1) if (typeof v[i] !== 'string') return false;
  return true;
}

function optional(v: Record<string, unknown>, keys: readonly string[], check: (x: unknown) => boolean): boolean {
  for (const k of keys) if (v[k] !== undefined && !check(v[k])) return false;
  return true;
}

/** Absent, or known names with at most one validator among them. */
function optionalTransformations(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isStrings(v)) return false;
  for (const name of v) if (!NAMES.has(name)) return false;
  return validatorsIn(v).length <= 1;
}

/** A new object of `v`'s present keys in `keys`' order, arrays copied, with `replaced` values. */
function copyKeys(
  v: Record<string, unknown>,
  keys: readonly string[],
  replaced: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (!Object.hasOwn(v, k)) continue;
    const x = k in replaced ? replaced[k] : v[k];
    out[k] = Array.isArray(x) && !(k in replaced) ? [...x] : x;
  }
  return out;
}
