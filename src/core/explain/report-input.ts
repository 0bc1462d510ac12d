import { z } from 'zod';
import { OUTPUT_FORMATS } from '../output/formats.js';
import { InputError } from '../errors/index.js';
import type { ExplainInput } from './explain.js';

const where = { source: z.string().nullable(), line: z.number().int().nullable(), text: z.string() };

/** The parts of a `--report` file (docs/report.md) that `explain` reads; other keys are left alone. */
export const explainReportSchema = z.object({
  format: z.enum(OUTPUT_FORMATS),
  kept: z.array(z.object(where)),
  removed: z.array(
    z.object({
      ...where,
      scope: z.union([z.number().int(), z.literal('global')]),
      transformation: z.string(),
      code: z.string(),
      reason: z.string(),
    }),
  ),
});

/**
 * A parsed report file as `explain` reads it; an InputError naming the file and what is wrong,
 * such as a report written before reports carried the kept rules.
 */
export function parseExplainReport(json: unknown, file: string): ExplainInput {
  const result = explainReportSchema.safeParse(json);
  if (result.success) return result.data;
  const missing = (key: string) => typeof json === 'object' && json !== null && !Array.isArray(json) && !(key in json);
  if (missing('kept') || missing('format')) {
    throw new InputError([
      `${file} has no "kept" rules or "format": it is not a report of this flc; compile again with --report`,
    ]);
  }
  throw new InputError(
    result.error.issues.map((issue) => `${file}: ${z.core.toDotPath(issue.path) || 'the document'}: ${issue.message}`),
  );
}
