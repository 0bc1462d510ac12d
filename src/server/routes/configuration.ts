import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonBody, jsonResponse, okBody, ok } from '../routing/route.js';
import { validateConfiguration } from '../../core/config/parse.js';
import { ConfigError } from '../../core/errors/index.js';
import { TRANSFORMATION_NAMES } from '../../core/transforms/types.js';
import { COMPILE_LIMITS, COMPILE_ROUTE, compileRequest } from '../compile/service.js';
import { problemResponse, refuse } from '../problem.js';

const issue = z.object({ path: z.string(), message: z.string() });

/** Objects merge key by key; arrays and scalars in `override` replace. */
export function mergeConfiguration(base: unknown, override: unknown): unknown {
  if (override === undefined) return base;
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(base) || !isObject(override)) return override;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(override)) out[k] = mergeConfiguration(base[k], v);
  return out;
}

/** `/api/configuration/defaults`, `/validate`, `/resolve`. */
export function registerConfigurationRoutes(app: OpenAPIHono, envOverrides: unknown): void {
  app.openapi(
    route({
      method: 'get',
      path: '/api/configuration/defaults',
      access: 'public',
      summary: 'Defaults and limits for compile configurations',
      responses: {
        200: jsonResponse(
          'Defaults',
          okBody({
            defaults: z.record(z.string(), z.unknown()),
            limits: z.object({ maxSources: z.number(), maxExclusions: z.number() }),
            supportedSourceTypes: z.array(z.string()),
          }),
        ),
      },
    }),
    (c) =>
      ok(c, {
        defaults: {
          compilation: {
            transformations: [],
            onSourceError: 'fail',
            availableTransformations: [...TRANSFORMATION_NAMES],
          },
          validation: { strict: false },
        },
        limits: { maxSources: COMPILE_LIMITS.maxSources, maxExclusions: COMPILE_LIMITS.maxExclusions },
        supportedSourceTypes: ['adblock', 'hosts'],
      }),
  );

  app.openapi(
    route({
      ...COMPILE_ROUTE,
      path: '/api/configuration/validate',
      badBody: 400,
      summary: 'Validate a configuration',
      request: { body: jsonBody(compileRequest) },
      responses: {
        200: jsonResponse(
          'Valid, or the problems by path',
          z.union([
            okBody({
              valid: z.literal(true),
              configuration: z.record(z.string(), z.unknown()),
            }),
            z.object({ success: z.literal(false), valid: z.literal(false), errors: z.array(issue) }),
          ]),
        ),
        400: problemResponse('Malformed body'),
      },
    }),
    (c) => {
      try {
        const { config } = validateConfiguration(c.req.valid('json').configuration);
        return ok(c, { valid: true as const, configuration: config });
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        return c.json(
          {
            success: false as const,
            valid: false as const,
            errors: e.issues.map(({ path, message }) => ({ path, message })),
          },
          200,
        );
      }
    },
  );

  app.openapi(
    route({
      ...COMPILE_ROUTE,
      path: '/api/configuration/resolve',
      badBody: 400,
      summary: 'Merge a configuration with overrides and validate the result',
      request: {
        body: jsonBody(
          z.object({
            config: z.unknown(),
            override: z.unknown().optional(),
            applyEnvOverrides: z.boolean().optional(),
            challengeToken: z.string().optional(),
          }),
        ),
      },
      responses: {
        200: jsonResponse('The merged configuration', okBody({ resolved: z.record(z.string(), z.unknown()) })),
        400: problemResponse('Malformed or invalid'),
      },
    }),
    (c) => {
      const body = c.req.valid('json');
      let merged = mergeConfiguration(body.config, body.override);
      if (body.applyEnvOverrides) merged = mergeConfiguration(merged, envOverrides);
      try {
        return ok(c, { resolved: validateConfiguration(merged).config });
      } catch (e) {
        if (e instanceof ConfigError) refuse(400, e.message);
        throw e;
      }
    },
  );
}
