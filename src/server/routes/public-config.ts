import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonResponse, okBody, ok } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { parseDsn } from '../notify/targets.js';

const turnstileConfig = okBody({
  enabled: z.boolean().describe('true when POSTs to the compile, walk and configuration routes need a token'),
  siteKey: z.string().nullable().optional().describe('the public site key (null when only the secret is set)'),
});
const sentryConfig = okBody({
  enabled: z.boolean(),
  dsn: z.string().optional().describe('the public DSN: scheme, public key, host and project, never a secret key'),
});

/** A DSN as browsers may see it: the public key, host, path and project; no secret, query or fragment. */
export function publicDsn(text: string | undefined): string | undefined {
  const dsn = text ? parseDsn(text) : null;
  if (!dsn) return undefined;
  return `${dsn.base.replace('://', `://${encodeURIComponent(dsn.publicKey)}@`)}/${dsn.projectId}`;
}

/** `GET /api/turnstile-config` and `GET /api/sentry-config`: the public settings a browser client needs. */
export function registerPublicConfigRoutes(app: OpenAPIHono, deps: AppDeps): void {
  app.openapi(
    route({
      method: 'get',
      path: '/api/turnstile-config',
      access: 'public',
      summary: 'Bot-challenge settings for browsers',
      responses: {
        200: jsonResponse('Whether a challenge token is required, and the public site key', turnstileConfig),
      },
    }),
    (c) =>
      deps.challenge?.secretKey
        ? ok(c, { enabled: true, siteKey: deps.challenge.siteKey ?? null })
        : ok(c, { enabled: false }),
  );
  const dsn = publicDsn(deps.browserDsn);
  app.openapi(
    route({
      method: 'get',
      path: '/api/sentry-config',
      access: 'public',
      summary: 'Error-tracker settings for browsers',
      responses: {
        200: jsonResponse('The public DSN, if any', sentryConfig),
      },
    }),
    (c) => (dsn ? ok(c, { enabled: true, dsn }) : ok(c, { enabled: false })),
  );
}
