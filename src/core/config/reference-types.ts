import type { z } from 'zod';
import type { configurationSchema, sourceSchema } from './schema.js';

// The type names of @adguard/hostlist-compiler's declarations, so that TypeScript written against
// it compiles against flc with only the package name changed. They are the configuration as
// written (zod's input type): what is optional there is optional here.

/** A compile configuration, as `IConfiguration` of @adguard/hostlist-compiler (and flc's own keys). */
export type IConfiguration = z.input<typeof configurationSchema> & { $schema?: string };

/** One source of a configuration, as `ISource` of @adguard/hostlist-compiler. */
export type ISource = z.input<typeof sourceSchema>;

/** `adblock` or `hosts`, as `SourceType` of @adguard/hostlist-compiler. */
export type SourceType = NonNullable<ISource['type']>;
