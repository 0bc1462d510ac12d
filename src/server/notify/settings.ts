/** Where `POST /api/notify` delivers; every target is off unless its setting is given. */
export interface NotifySettings {
  /** Generic webhook (WEBHOOK_URL): receives the request body verbatim. */
  webhookUrl?: string;
  /** Error tracker (ERRORTRACKER_DSN): `https://<publicKey>@<host>/<projectId>`, store API. */
  errorTrackerDsn?: string;
  /** Metrics/events service key (METRICS_API_KEY): events v1 API. */
  metricsApiKey?: string;
  /** Base URL of the metrics service (METRICS_API_URL). */
  metricsApiUrl: string;
  /** Per-target timeout in milliseconds (NOTIFY_TIMEOUT_MS). */
  timeoutMs: number;
}

const DEFAULT_METRICS_API_URL = 'https://api.datadoghq.com';
const DEFAULT_NOTIFY_TIMEOUT_MS = 5_000;

/** The notify settings from the environment; empty values count as unset. */
export function notifySettingsFromEnv(env: Record<string, string | undefined>): NotifySettings {
  const timeout = Number(env.NOTIFY_TIMEOUT_MS);
  return {
    webhookUrl: env.WEBHOOK_URL || undefined,
    errorTrackerDsn: env.ERRORTRACKER_DSN || undefined,
    metricsApiKey: env.METRICS_API_KEY || undefined,
    metricsApiUrl: env.METRICS_API_URL || DEFAULT_METRICS_API_URL,
    timeoutMs: Number.isInteger(timeout) && timeout > 0 ? timeout : DEFAULT_NOTIFY_TIMEOUT_MS,
  };
}
