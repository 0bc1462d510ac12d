import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from './deps.js';
import { onError, problem } from './problem.js';
import { registerInfoRoutes } from './routes/info.js';
import { registerRuleLimits, registerRuleRoutes } from './routes/rules.js';
import { registerCompileLimits, registerCompileRoutes } from './routes/compile.js';
import { registerConfigurationRoutes } from './routes/configuration.js';
import { answerRefusedUpgrade, registerWebSocketRoutes, WS_LIMITS } from './routes/websocket.js';
import { registerSchemaRoutes } from './routes/schemas.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerKeyRoutes } from './routes/keys.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerMetricsMiddleware, registerStatusRoutes, type RequestMetrics } from './routes/status.js';
import { issueMessages } from '../core/ast/issues.js';
import { challengeGate, DEFAULT_VERIFY_URL } from './challenge.js';
import { accessGate } from './access/gate.js';
import { UsageRecorder } from './access/usage.js';
import { registerUserRoutes } from './routes/users.js';
import { registerNotifyLimits, registerNotifyRoutes } from './routes/notify.js';
import { registerPublicConfigRoutes } from './routes/public-config.js';
import { registerErrorCodeRoutes } from './routes/error-codes.js';
import { registerTrpcErrorEnvelope, registerTrpcLimits, registerTrpcRoutes } from './routes/trpc.js';
import { DEFAULT_BODY_LIMIT, limitedBody } from './body-limit.js';
import { securityHeaders } from './security-headers.js';
import { auditTrail } from './audit/trail.js';
import { registerAdminSystemRoutes } from './routes/admin-system/index.js';
import { registerQueueLimits, registerQueueRoutes } from './routes/queue.js';
import { JobRunner, QUEUE_DEFAULTS } from './queue/runner.js';
import { jobExecutor } from './queue/execute.js';
import { registerContainerRoutes } from './routes/container.js';
import { registerWorkflowRoutes } from './routes/workflow.js';
import { ContainerCompiler } from '../node/container-compiler.js';
import { pageRedirect } from './flash/page-redirect.js';
import { LiveSessions } from './live-sessions.js';
import { registerAdminStorageRoutes } from './routes/admin-storage.js';
import { registerAdminDatabaseLimits, registerAdminDatabaseRoutes } from './routes/admin-database.js';
import { registerRuleSetRoutes } from './routes/rule-sets.js';
import { registerFlashRoutes } from './routes/flash.js';
import { registerFrontendErrorLimits, registerFrontendErrorRoutes } from './routes/frontend-errors.js';

/**
 * Builds the HTTP app. Routes are declared once with zod schemas, which validate
 * requests and produce `/api/openapi.json`. Nothing listens until `serve` is called.
 */
export function createApp(
  deps: AppDeps,
  log: (message: string) => void = () => undefined,
  wsTiming = WS_LIMITS,
): OpenAPIHono {
  deps = { ...deps, liveSessions: deps.liveSessions ?? new LiveSessions(deps.now) };
  const app = new OpenAPIHono({
    // A request that fails its schema: 422 with the messages joined by "; ".
    defaultHook: (result, c) => {
      if (result.success) return undefined;
      const error = issueMessages(result.error).join('; ');
      // The batch and configuration routes answer a malformed body with 400, the others 422.
      if (/^\/api\/(compile\/batch|configuration\/)/.test(c.req.path)) return problem(c, 400, error);
      if (/^\/(api\/auth\/|api\/keys|api\/admin\/|admin\/|api\/log\/|api\/rules|api\/flash)/.test(c.req.path))
        return problem(c, 422, error);
      return c.json({ success: false, error }, 422);
    },
  });
  app.onError(onError(log));
  app.notFound((c) => problem(c, 404, `No route for ${c.req.method} ${c.req.path}`));
  app.use('*', securityHeaders());
  const metrics: RequestMetrics = { total: 0, byRoute: {}, byStatus: {} };
  registerMetricsMiddleware(app, metrics);
  // Order matters: who may call (and how often) first, size limits before anything reads a
  // body, then the challenge, then the routes.
  const usage = deps.usage ?? new UsageRecorder(deps.store, deps.now, 1_000, log);
  // Outermost of the gates: turns their 401/403 on a browser's page request into the login redirect.
  app.use('*', pageRedirect(deps, log));
  registerTrpcErrorEnvelope(app);
  for (const path of ['/api/ws/compile', '/ws/compile']) app.use(path, answerRefusedUpgrade);
  // Around the gate, so that the refusals it answers are audited too.
  for (const path of ['/admin/*', '/api/admin/*']) app.use(path, auditTrail(deps, log));
  app.use('*', accessGate(deps, usage, deps.store.rateLimiter('requests'), log));
  registerRuleLimits(app);
  registerCompileLimits(app, deps);
  registerQueueLimits(app);
  registerNotifyLimits(app);
  registerTrpcLimits(app);
  registerFrontendErrorLimits(app);
  registerAdminDatabaseLimits(app);
  app.use('*', limitedBody(DEFAULT_BODY_LIMIT));
  const gate = challengeGate(deps.challenge ?? { verifyUrl: DEFAULT_VERIFY_URL });
  for (const path of [
    '/api/compile',
    '/api/compile/*',
    '/compile/stream',
    '/api/ast/walk',
    '/api/configuration/validate',
    '/api/configuration/resolve',
    '/api/trpc/compile',
    '/api/trpc/ast.walk',
  ]) {
    app.use(path, gate);
  }
  registerInfoRoutes(app, deps);
  registerRuleRoutes(app, deps.pool);
  registerCompileRoutes(app, deps);
  const queue = deps.queue ?? new JobRunner(deps.store.jobs, jobExecutor(deps), QUEUE_DEFAULTS, deps.now, log);
  registerQueueRoutes(app, deps, queue);
  registerWorkflowRoutes(app, deps, queue);
  registerContainerRoutes(app, deps, deps.container ?? new ContainerCompiler());
  registerConfigurationRoutes(app, deps.envOverrides);
  registerWebSocketRoutes(app, deps, wsTiming);
  registerStatusRoutes(app, deps, metrics);
  registerSchemaRoutes(app);
  registerAuthRoutes(app, deps);
  registerKeyRoutes(app, deps);
  registerAdminRoutes(app, deps, metrics);
  registerUserRoutes(app, deps, usage);
  registerAdminSystemRoutes(app, deps);
  registerNotifyRoutes(app, deps, log);
  registerPublicConfigRoutes(app, deps);
  registerErrorCodeRoutes(app);
  registerTrpcRoutes(app, deps, log);
  registerFlashRoutes(app, deps);
  registerFrontendErrorRoutes(app, deps, log);
  registerRuleSetRoutes(app, deps);
  registerAdminStorageRoutes(app, deps);
  registerAdminDatabaseRoutes(app, deps);
  app.doc('/api/openapi.json', {
    openapi: '3.0.3',
    info: { title: 'flc — filter-list compiler service', version: deps.version },
  });
  return app;
}
