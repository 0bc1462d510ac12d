import { z } from '@hono/zod-openapi';
import { type ConfigRecord, type SectionName, sectionSpec } from '../../store/config-sections.js';

/**
 * The columns the specification writes as JSON-encoded strings (a role's `permissions`, a tier's
 * `features`, an override's `required_scopes`): answered as that text, and accepted either as
 * the value itself or as its JSON text. The store, bundles and the gate keep the decoded values.
 */
export function jsonText<T extends z.ZodType>(schema: T) {
  return z
    .preprocess((value, ctx) => {
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'a string here must be JSON text', input: value });
        return z.NEVER;
      }
    }, schema)
    .openapi({ description: 'The value, or its JSON text; answered as JSON text' });
}

/** A configuration row as the admin routes answer it: its JSON columns as JSON text (null stays null). */
export function asSpecRow(section: SectionName, row: ConfigRecord): ConfigRecord {
  const out = { ...row };
  for (const column of sectionSpec(section).json) {
    const value = out[column];
    if (value !== null && value !== undefined) out[column] = JSON.stringify(value);
  }
  return out;
}
