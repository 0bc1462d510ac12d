import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from './deps.js';
import { onError, problem } from './problem.js';
import { registerInfoRoutes } from './routes/info.js';
import { registerRuleRoutes } from './routes/rules.js';
import { registerCompileRoutes } from './routes/compile.js';
import { registerExplainRoutes } from './routes/explain.js';
import { registerConfigurationRoutes } from './routes/configuration.js';
import { registerWebSocketRoutes, WS_LIMITS } from './routes/websocket.js';
import { registerSchemaRoutes } from './routes/schemas.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerKeyRoutes } from './routes/keys.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerMetricsMiddleware, registerStatusRoutes, type RequestMetrics } from './routes/status.js';
import { UsageRecorder } from './access/usage.js';
import { registerUserRoutes } from './routes/users.js';
import { registerNotifyRoutes } from './routes/notify.js';
import { registerPublicConfigRoutes } from './routes/public-config.js';
import { registerErrorCodeRoutes } from './routes/error-codes.js';
import { trpcRoutes } from './routes/trpc.js';
import { securityHeaders } from './security-headers.js';
import { registerRoleRoutes } from './routes/admin-system/roles.js';
import { registerAccessConfigRoutes } from './routes/admin-system/access-config.js';
import { registerAnnouncementRoutes } from './routes/admin-system/announcements.js';
import { registerAuditRoutes } from './routes/admin-system/audit.js';
import { registerContextRoutes } from './routes/admin-system/context.js';
import { registerFeatureFlagRoutes } from './routes/feature-flags.js';
import { registerConfigBundleRoutes } from './routes/admin-system/config-bundle.js';
import { registerDataSubjectRoutes } from './routes/admin-system/data-subject.js';
import { registerQueueRoutes } from './routes/queue.js';
import { JobRunner, QUEUE_DEFAULTS } from './queue/runner.js';
import { jobExecutor } from './queue/execute.js';
import { registerContainerRoutes } from './routes/container.js';
import { ContainerCompiler } from '../node/container-compiler.js';
import { pageRedirect } from './flash/page-redirect.js';
import { LiveSessions } from './live-sessions.js';
import { registerAdminDatabaseRoutes } from './routes/admin-database.js';
import { registerRuleSetRoutes } from './routes/rule-sets.js';
import { registerFlashRoutes } from './routes/flash.js';
import { registerFrontendErrorRoutes } from './routes/frontend-errors.js';
import { guardsMiddleware, routeGuards } from './routing/guards.js';
import { assertEveryRouteDescribed, badBodyHook, describedRoutes, featureApp, plainRoute } from './routing/route.js';

/**
 * Builds the HTTP app. Each route is declared once, with its zod schemas and its facts (access
 * rule, limits, challenge, audit action) in one descriptor (`routing/route.ts`), which validate
 * requests, guard them and produce `/api/openapi.json`. Nothing listens until `serve` is called.
 */
export function createApp(
  deps: AppDeps,
  log: (message: string) => void = () => undefined,
  wsTiming = WS_LIMITS,
): OpenAPIHono {
  deps = { ...deps, liveSessions: deps.liveSessions ?? new LiveSessions(deps.now) };
  // A request that fails its schema is answered as its route's descriptor says.
  const app = new OpenAPIHono({ defaultHook: badBodyHook });
  app.onError(onError(log));
  app.notFound((c) => problem(c, 404, `No route for ${c.req.method} ${c.req.path}`));
  app.use('*', securityHeaders());
  const metrics: RequestMetrics = { total: 0, byRoute: {}, byStatus: {} };
  registerMetricsMiddleware(app, metrics);
  const usage = deps.usage ?? new UsageRecorder(deps.store, deps.now, 1_000, log);
  // Outermost of the refusals: turns a 401/403 on a browser's page request into the login redirect.
  app.use('*', pageRedirect(deps, log));
  // Every route's own steps (access rule, limits, challenge, audit) come from its descriptor.
  app.use(
    '*',
    guardsMiddleware(
      deps,
      routeGuards(deps, usage, log, () => describedRoutes(app)),
    ),
  );
  // Each feature area is a sub-app with the same schema-failure hook, mounted on this one.
  const mount = (...registers: ((area: OpenAPIHono) => void)[]) => {
    const area = featureApp();
    for (const register of registers) register(area);
    app.route('/', area);
  };
  const queue = deps.queue ?? new JobRunner(deps.store.jobs, jobExecutor(deps), QUEUE_DEFAULTS, deps.now, log);
  mount(
    (a) => registerInfoRoutes(a, deps),
    (a) => registerStatusRoutes(a, deps, metrics),
    registerSchemaRoutes,
    (a) => registerPublicConfigRoutes(a, deps),
    registerErrorCodeRoutes,
    (a) => registerFlashRoutes(a, deps),
    (a) => registerNotifyRoutes(a, deps, log),
  );
  mount(
    (a) => registerRuleRoutes(a, deps.pool),
    (a) => registerRuleSetRoutes(a, deps),
    (a) => registerCompileRoutes(a, deps),
    (a) => registerExplainRoutes(a, deps),
    (a) => registerQueueRoutes(a, deps, queue),
    (a) => registerContainerRoutes(a, deps, deps.container ?? new ContainerCompiler()),
    (a) => registerConfigurationRoutes(a, deps.envOverrides),
    (a) => registerWebSocketRoutes(a, deps, wsTiming),
  );
  mount(
    (a) => registerAuthRoutes(a, deps),
    (a) => registerKeyRoutes(a, deps),
  );
  mount(
    (a) => registerAdminRoutes(a, deps, metrics),
    (a) => registerUserRoutes(a, deps, usage),
    // The admin system (`/admin/system/*`) and the feature flags (`/admin/config/feature-flags`).
    (a) => registerRoleRoutes(a, deps),
    (a) => registerContextRoutes(a, deps),
    (a) => registerAccessConfigRoutes(a, deps),
    (a) => registerAnnouncementRoutes(a, deps),
    (a) => registerAuditRoutes(a, deps),
    (a) => registerFeatureFlagRoutes(a, deps),
    (a) => registerConfigBundleRoutes(a, deps),
    (a) => registerDataSubjectRoutes(a, deps),
    (a) => registerAdminDatabaseRoutes(a, deps),
    (a) => registerFrontendErrorRoutes(a, deps, log),
  );
  app.route('/', trpcRoutes(deps, log, describedRoutes(app)));
  deps.console?.(app, deps, log);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  const document = { openapi: '3.0.3', info: { title: 'flc — filter-list compiler service', version: deps.version } };
  plainRoute(app, {
    method: 'get',
    path: '/api/openapi.json',
    access: 'public',
    summary: 'This document',
    responses: { 200: { description: 'The OpenAPI 3.0.3 document of every route' } },
    handlers: [(c) => c.json(app.getOpenAPIDocument(document))],
  });
  assertEveryRouteDescribed(app);
  return app;
}
