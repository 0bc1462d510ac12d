import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonResponse, okBody, ok } from '../routing/route.js';
import { z as zod } from 'zod';
import { configurationSchema } from '../../core/config/schema.js';
import { validateRuleRequestSchema } from '../../core/ast/validate-rule.js';
import { astWalkRequestSchema } from '../../core/ast/walk.js';
import { parseRulesRequestSchema, validateListRequestSchema } from '../../core/ast/list.js';

/** `/api/schemas`: the JSON Schemas of what clients send, generated from the zod schemas the routes validate with. */
export function registerSchemaRoutes(app: OpenAPIHono): void {
  const json = (schema: zod.ZodType) => zod.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  const schemas = {
    configuration: json(configurationSchema),
    validateRuleRequest: json(validateRuleRequestSchema),
    astWalkRequest: json(astWalkRequestSchema),
    astParseRequest: json(parseRulesRequestSchema),
    validateListRequest: json(validateListRequestSchema),
  };
  app.openapi(
    route({
      method: 'get',
      path: '/api/schemas',
      access: 'public',
      summary: 'JSON Schemas of the request bodies and the compile configuration',
      responses: {
        200: jsonResponse('Schemas by name', okBody({ schemas: z.record(z.string(), z.unknown()) })),
      },
    }),
    (c) => ok(c, { schemas }),
  );
}
