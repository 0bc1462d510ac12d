import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonBody, jsonResponse } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { problemResponse } from '../problem.js';
import { formatDuration } from '../../core/ast/validate-rule.js';
import { notifyRequest, outboundRequests } from '../notify/targets.js';
import { deliverAll, delivery } from '../notify/deliver.js';
import { notifySettingsFromEnv } from '../notify/settings.js';

/** The notify body's size cap (the specification leaves it open; the frontend-error log's 64 KB). */
export const NOTIFY_BODY_BYTES = 64 * 1024;

const outcome = z.object({
  success: z.boolean(),
  event: z.string(),
  deliveries: z.array(delivery),
  duration: z.string(),
});

const NONE_CONFIGURED = 'No notification target is configured: set WEBHOOK_URL, ERRORTRACKER_DSN or METRICS_API_KEY';

const notifyRoute = route({
  method: 'post',
  path: '/api/notify',
  access: 'public',
  bodyLimit: NOTIFY_BODY_BYTES,
  // The body read as text once, so the webhook gets exactly what was sent.
  middleware: async (c, next) => {
    await c.req.text();
    await next();
  },
  summary: 'Send an event to every configured notification target (webhook, error tracker, metrics service)',
  request: { body: jsonBody(notifyRequest) },
  responses: {
    200: jsonResponse('At least one target delivered', outcome),
    422: problemResponse('The body fails the schema'),
    502: jsonResponse('Every target failed', outcome),
    503: jsonResponse('No target configured', z.object({ success: z.literal(false), error: z.string() })),
  },
});

/** `POST /api/notify`: fans one event out to the configured targets in parallel. */
export function registerNotifyRoutes(app: OpenAPIHono, deps: AppDeps, log: (message: string) => void): void {
  const settings = deps.notify ?? notifySettingsFromEnv({});
  app.openapi(notifyRoute, async (c) => {
    const body = c.req.valid('json');
    const started = performance.now();
    const event = { ...body, timestamp: body.timestamp ?? new Date(deps.now()).toISOString() };
    const requests = outboundRequests(settings, event, await c.req.text(), deps.version);
    if (requests.length === 0) return c.json({ success: false as const, error: NONE_CONFIGURED }, 503);
    const deliveries = await deliverAll(requests, settings.timeoutMs);
    for (const d of deliveries) {
      if (!d.success) log(`notify: delivery of ${JSON.stringify(body.event)} to ${d.target} failed: ${d.error}`);
    }
    const success = deliveries.some((d) => d.success);
    const answer = { success, event: body.event, deliveries, duration: formatDuration(performance.now() - started) };
    return success ? c.json(answer, 200) : c.json(answer, 502);
  });
}
