import { z } from 'zod';
import { parseAge } from '../publish/duration.js';

/** An age: `90s`, `30m`, `36h`, `7d`, or seconds. */
export const age = z
  .union([z.number().positive(), z.string()])
  .refine((value) => (typeof value === 'number' ? true : (parseAge(value) ?? 0) > 0), {
    error: (issue) => `${JSON.stringify(issue.input)} is not an age (write 90s, 30m, 36h, 7d or seconds)`,
  });

/** A differential-update patch's name, as AdGuard's builder takes it: 1-64 letters, digits, `_` and `.`. */
export const PATCH_NAME_RE = /^[a-zA-Z0-9_.]{1,64}$/;

/**
 * `publish`: how the list is published from CI (docs/configuration.md). What describes the list
 * lives here; what describes the machine (the patches' folder, the DNS server) stays on the
 * command line.
 */
export const publishSchema = z.strictObject({
  /** Differential updates: the patches' name, their time unit, their expiry in that unit, how long they are kept. */
  diffPatches: z
    .strictObject({
      name: z.string().regex(PATCH_NAME_RE, { error: 'must be 1-64 letters, digits, "_" and "."' }).optional(),
      resolution: z.enum(['h', 'm', 's']).optional(),
      expiry: z.number().int().positive().optional(),
      checksum: z.boolean().optional(),
      keep: age.optional(),
    })
    .optional(),
  maxShrink: z.number().min(0).max(100).optional(),
  minRules: z.number().int().min(0).optional(),
  checkDns: z.union([z.boolean(), z.strictObject({ recheckAfter: age.optional(), budget: age.optional() })]).optional(),
});

export type PublishConfig = z.infer<typeof publishSchema>;
