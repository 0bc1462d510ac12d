import { z } from '@hono/zod-openapi';
import { randomUUID } from 'node:crypto';
import type { NotifySettings } from './settings.js';
import type { Delivery } from './deliver.js';

/**
 * `POST /api/notify`'s body. Strict: a key outside these is refused (422), so that the webhook,
 * which gets the body's exact bytes, is never handed fields an anonymous caller made up.
 */
export const notifyRequest = z.strictObject({
  event: z.string().min(1).max(256).describe('machine-readable name'),
  message: z.string().min(1),
  level: z.enum(['info', 'warn', 'error', 'debug']).default('info'),
  source: z.string().max(256).optional(),
  timestamp: z.iso.datetime({ offset: true }).optional().describe('ISO 8601; default now'),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** A validated notification with its defaults applied, its timestamp among them. */
export type NotifyEvent = z.output<typeof notifyRequest> & { timestamp: string };
type Level = NotifyEvent['level'];

/** One request to send, or why a configured target cannot be sent to (never quoting its setting). */
export type Outbound =
  | { target: Delivery['target']; url: string; headers: Record<string, string>; body: string }
  | { target: Delivery['target']; error: string };

/** A parsed error-tracker DSN: `<scheme>://<publicKey>[:<secretKey>]@<host>[/<path>]/<projectId>`. */
export interface Dsn {
  publicKey: string;
  secretKey?: string;
  /** Scheme, host and port, with any path before the project id. */
  base: string;
  projectId: string;
}

export function parseDsn(text: string): Dsn | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  const parts = url.pathname.split('/');
  const projectId = parts.pop();
  if (!/^https?:$/.test(url.protocol) || !url.username || !projectId) return null;
  return {
    publicKey: decodeURIComponent(url.username),
    ...(url.password ? { secretKey: decodeURIComponent(url.password) } : {}),
    base: `${url.protocol}//${url.host}${parts.join('/')}`,
    projectId,
  };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** `warn` is `warning` for both services; the metrics service has no `debug` alert type, so it gets `info`. */
const TRACKER_LEVEL: Record<Level, string> = { info: 'info', warn: 'warning', error: 'error', debug: 'debug' };
const METRICS_ALERT: Record<Level, string> = { info: 'info', warn: 'warning', error: 'error', debug: 'info' };

/** The webhook gets the request body as sent; credentials in its URL become a Basic authorization header. */
function webhook(urlText: string, rawBody: string): Outbound {
  if (!URL.canParse(urlText)) return { target: 'generic', error: 'WEBHOOK_URL is not a URL' };
  const url = new URL(urlText);
  if (!/^https?:$/.test(url.protocol)) return { target: 'generic', error: 'WEBHOOK_URL is not an http(s) URL' };
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { target: 'generic', url: url.href, headers, body: rawBody };
}

/** The error tracker's store API: one event per notification. */
function errorTracker(dsnText: string, e: NotifyEvent, version: string): Outbound {
  const dsn = parseDsn(dsnText);
  if (!dsn) {
    return { target: 'errortracker', error: 'ERRORTRACKER_DSN is not of the form https://<key>@<host>/<projectId>' };
  }
  const auth = [
    'Sentry sentry_version=7',
    `sentry_key=${dsn.publicKey}`,
    ...(dsn.secretKey ? [`sentry_secret=${dsn.secretKey}`] : []),
    `sentry_client=flc/${version}`,
  ].join(', ');
  const body = {
    event_id: randomUUID().replaceAll('-', ''),
    timestamp: e.timestamp,
    platform: 'other',
    level: TRACKER_LEVEL[e.level],
    message: e.message,
    ...(e.source !== undefined ? { logger: e.source } : {}),
    ...(e.metadata !== undefined ? { extra: e.metadata } : {}),
    tags: { event: e.event },
  };
  return {
    target: 'errortracker',
    url: `${dsn.base}/api/${dsn.projectId}/store/`,
    headers: { ...JSON_HEADERS, 'x-sentry-auth': auth },
    body: JSON.stringify(body),
  };
}

/** A metadata value as the text after `key:` in a tag. */
function tagValue(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/** The metrics service's events v1 API. */
function metrics(apiKey: string, baseUrl: string, e: NotifyEvent): Outbound {
  const body = {
    title: e.event,
    text: e.message,
    alert_type: METRICS_ALERT[e.level],
    ...(e.source !== undefined ? { source_type_name: e.source } : {}),
    tags: Object.entries(e.metadata ?? {}).map(([key, value]) => `${key}:${tagValue(value)}`),
    date_happened: Math.floor(Date.parse(e.timestamp) / 1000),
  };
  return {
    target: 'metrics',
    url: `${baseUrl.replace(/\/+$/, '')}/api/v1/events`,
    headers: { ...JSON_HEADERS, 'dd-api-key': apiKey },
    body: JSON.stringify(body),
  };
}

/** The requests for every configured target, in a fixed order (generic, errortracker, metrics). */
export function outboundRequests(
  settings: NotifySettings,
  e: NotifyEvent,
  rawBody: string,
  version: string,
): Outbound[] {
  const out: Outbound[] = [];
  if (settings.webhookUrl) out.push(webhook(settings.webhookUrl, rawBody));
  if (settings.errorTrackerDsn) out.push(errorTracker(settings.errorTrackerDsn, e, version));
  if (settings.metricsApiKey) out.push(metrics(settings.metricsApiKey, settings.metricsApiUrl, e));
  return out;
}
