import { z } from '@hono/zod-openapi';
import { okBody } from '../routing/route.js';

/** `limit` (1–`max`, default `fallback`) and `offset` (0 up) query parameters of a paged list. */
export function pageQuery(max = 100, fallback = 50) {
  return z.object({
    limit: z.coerce.number().int().min(1).max(max).default(fallback),
    offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  });
}

/** A page of a list as answered: `{success, <key>: items, total, limit, offset}`. */
export function pageOf<K extends string, T extends z.ZodType>(key: K, item: T) {
  const items = { [key]: z.array(item) } as { [P in K]: z.ZodArray<T> };
  return okBody({
    ...items,
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  });
}
