import { z } from 'zod';
import { TRANSFORMATION_NAMES } from '../transforms/types.js';
import { validatorsIn } from '../transforms/registry.js';
import { dnsName } from '../rules/dns-rule.js';
import { OUTPUT_FORMATS } from '../output/formats.js';
import { age, publishSchema } from './publish-schema.js';

const patterns = z.array(z.string());

/**
 * Text the list's header writes on a line of its own (`! Title: …`, `! Source: …`): a line break
 * in it would end the comment and put the rest in the list as rules. Every control character but
 * the tab counts (CR, LF, vertical tab, form feed, NEL, NUL…), and so do U+2028 and U+2029, which
 * some readers take for line ends.
 */
const oneLine = z.string().refine((text) => !/[\p{Cc}\u2028\u2029]/u.test(text.replaceAll('\t', '')), {
  error: 'must be one line (no line break or control character)',
});

/** flc's `allow`: domains (IDN or punycode) whose rules are removed with their subdomains'. */
const domains = z.array(
  z.string().refine((text) => dnsName(text.trim()) !== null, {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not a domain name (an entry covers its subdomains: write example.org)`,
  }),
);

const transformations = z.array(z.enum(TRANSFORMATION_NAMES)).superRefine((list, ctx) => {
  const chosen = validatorsIn(list);
  if (chosen.length > 1) {
    ctx.addIssue({ code: 'custom', message: `validation transformations cannot be combined: ${chosen.join(', ')}` });
  }
});

export const sourceSchema = z.strictObject({
  source: oneLine.min(1),
  name: oneLine.min(1).optional(),
  type: z.enum(['adblock', 'hosts']).optional(),
  transformations: transformations.optional(),
  exclusions: patterns.optional(),
  exclusions_sources: patterns.optional(),
  inclusions: patterns.optional(),
  inclusions_sources: patterns.optional(),
  allow: domains.optional(),
  allow_sources: patterns.optional(),
});

/**
 * The compilation configuration: the reference compiler's keys exactly, plus flc's opt-in
 * `onSourceError`, `maxStale`, `format`, `allow`, `allow_sources` and `publish`. Unknown keys are errors.
 */
export const configurationSchema = z
  .strictObject({
    name: oneLine.min(1),
    description: oneLine.optional(),
    homepage: oneLine.optional(),
    license: oneLine.optional(),
    version: oneLine.optional(),
    sources: z.array(sourceSchema).min(1),
    transformations: transformations.optional(),
    exclusions: patterns.optional(),
    exclusions_sources: patterns.optional(),
    inclusions: patterns.optional(),
    inclusions_sources: patterns.optional(),
    allow: domains.optional(),
    allow_sources: patterns.optional(),
    format: z.enum(OUTPUT_FORMATS).optional(),
    onSourceError: z.enum(['fail', 'skip', 'stale']).optional(),
    maxStale: age.optional(),
    publish: publishSchema.optional(),
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
