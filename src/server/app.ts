import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from './deps.js';
import { onError, problem } from './problem.js';
import { registerInfoRoutes } from './routes/info.js';
import { registerRuleLimits, registerRuleRoutes } from './routes/rules.js';
import { registerCompileLimits, registerCompileRoutes } from './routes/compile.js';
import { registerConfigurationRoutes } from './routes/configuration.js';
import { registerWebSocketRoutes, WS_LIMITS } from './routes/websocket.js';
import { registerSchemaRoutes } from './routes/schemas.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerKeyRoutes } from './routes/keys.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerMetricsMiddleware, registerStatusRoutes, type RequestMetrics } from './routes/status.js';
import { issueMessages } from '../core/ast/issues.js';
import { challengeGate, DEFAULT_VERIFY_URL } from './challenge.js';
import { accessGate } from './access/gate.js';
import { UsageRecorder } from './access/usage.js';
import { fixedWindowLimiter } from './rate-limit.js';
import { registerUserRoutes } from './routes/users.js';

/**
 * Builds the HTTP app. Routes are declared once with zod schemas, which validate
 * requests and produce `/api/openapi.json`. Nothing listens until `serve` is called.
 */
export function createApp(deps: AppDeps, log: (message: string) => void = () => undefined, wsTiming = WS_LIMITS): OpenAPIHono {
  const app = new OpenAPIHono({
    // A request that fails its schema: 422 with the messages joined by "; ".
    defaultHook: (result, c) => {
      if (result.success) return undefined;
      const error = issueMessages(result.error).join('; ');
      // The batch and configuration routes answer a malformed body with 400, the others 422.
      if (/^\/api\/(compile\/batch|configuration\/)/.test(c.req.path)) return problem(c, 400, error);
      if (/^\/(api\/auth\/|api\/keys|api\/admin\/|admin\/)/.test(c.req.path)) return problem(c, 422, error);
      return c.json({ success: false, error }, 422);
    },
  });
  app.onError(onError(log));
  app.notFound((c) => problem(c, 404, `No route for ${c.req.method} ${c.req.path}`));
  const metrics: RequestMetrics = { total: 0, byRoute: {}, byStatus: {} };
  registerMetricsMiddleware(app, metrics);
  // Order matters: who may call (and how often) first, size limits before anything reads a
  // body, then the challenge, then the routes.
  const usage = deps.usage ?? new UsageRecorder(deps.store, deps.now, 1_000, log);
  app.use('*', accessGate(deps, usage, fixedWindowLimiter(60_000, deps.now), log));
  registerRuleLimits(app);
  registerCompileLimits(app, deps);
  const gate = challengeGate(deps.challenge ?? { verifyUrl: DEFAULT_VERIFY_URL });
  for (const path of ['/api/compile', '/api/compile/*', '/compile/stream', '/api/ast/walk', '/api/configuration/validate', '/api/configuration/resolve']) {
    app.use(path, gate);
  }
  registerInfoRoutes(app, deps);
  registerRuleRoutes(app);
  registerCompileRoutes(app, deps);
  registerConfigurationRoutes(app, deps.envOverrides);
  registerWebSocketRoutes(app, deps, wsTiming);
  registerStatusRoutes(app, deps, metrics);
  registerSchemaRoutes(app);
  registerAuthRoutes(app, deps);
  registerKeyRoutes(app, deps);
  registerAdminRoutes(app, deps, metrics);
  registerUserRoutes(app, deps, usage);
  app.doc('/api/openapi.json', {
    openapi: '3.0.3',
    info: { title: 'flc — filter-list compiler service', version: deps.version },
  });
  return app;
}
