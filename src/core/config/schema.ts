import { z } from 'zod';
import { TRANSFORMATION_NAMES } from '../transforms/types.js';
import { validatorsIn } from '../transforms/registry.js';

const patterns = z.array(z.string());

const transformations = z.array(z.enum(TRANSFORMATION_NAMES)).superRefine((list, ctx) => {
  const chosen = validatorsIn(list);
  if (chosen.length > 1) {
    ctx.addIssue({ code: 'custom', message: `validation transformations cannot be combined: ${chosen.join(', ')}` });
  }
});

export const sourceSchema = z.strictObject({
  source: z.string().min(1),
  name: z.string().min(1).optional(),
  type: z.enum(['adblock', 'hosts']).optional(),
  transformations: transformations.optional(),
  exclusions: patterns.optional(),
  exclusions_sources: patterns.optional(),
  inclusions: patterns.optional(),
  inclusions_sources: patterns.optional(),
});

/**
 * The compilation configuration: the reference compiler's keys exactly, plus the
 * opt-in `onSourceError`. Unknown keys are errors.
 */
export const configurationSchema = z
  .strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    homepage: z.string().optional(),
    license: z.string().optional(),
    version: z.string().optional(),
    sources: z.array(sourceSchema).min(1),
    transformations: transformations.optional(),
    exclusions: patterns.optional(),
    exclusions_sources: patterns.optional(),
    inclusions: patterns.optional(),
    inclusions_sources: patterns.optional(),
    onSourceError: z.enum(['fail', 'skip']).optional(),
  })
  .superRefine((config, ctx) => {
    const top = validatorsIn(config.transformations);
    if (top.length === 0) return;
    config.sources.forEach((source, i) => {
      const own = validatorsIn(source.transformations);
      if (own.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['sources', i, 'transformations'],
          message:
            'validation transformations cannot be used at both source and top level ' +
            `(source uses ${own.join(', ')}, top level uses ${top.join(', ')})`,
        });
      }
    });
  });

export type Configuration = z.infer<typeof configurationSchema>;
export type SourceConfig = z.infer<typeof sourceSchema>;
