#!/usr/bin/env node
// Part of `npm run build`, after tsc: writes dist/configuration.schema.json, the JSON Schema of a
// compile configuration, from the zod schema the compiler validates with (so the two cannot
// drift). A configuration names it in its `$schema` key, which flc accepts and ignores, and
// editors then complete and check it. Refinements zod cannot express in JSON Schema (one validator
// per list, domain names in `allow`) are still checked by flc itself.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { configurationSchema } = await import(join(root, 'dist/core/config/schema.js'));

const schema = z.toJSONSchema(configurationSchema, { io: 'input' });
const document = {
  $schema: schema.$schema,
  title: 'flc compile configuration',
  description:
    "A filter list's sources and transformations: @adguard/hostlist-compiler's keys, plus flc's own " +
    '(format, allow, allow_sources, onSourceError).',
  ...schema,
  properties: {
    $schema: { type: 'string', description: 'This schema, for editors; flc ignores it.' },
    ...schema.properties,
  },
};
writeFileSync(join(root, 'dist/configuration.schema.json'), `${JSON.stringify(document, null, 2)}\n`);
