import { z } from '@hono/zod-openapi';

/** `limit` (1–`max`, default `fallback`) and `offset` (0 up) query parameters of a paged list. */
export function pageQuery(max = 100, fallback = 50) {
  return z.object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(max)
      .default(fallback)
      .openapi({ param: { name: 'limit', in: 'query' } }),
    offset: z.coerce
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .default(0)
      .openapi({ param: { name: 'offset', in: 'query' } }),
  });
}
