import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { jsonBody, jsonResponse, route } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { clientMessage, problemResponse, refuse, statusOf } from '../problem.js';
import { COMPILE_ROUTE, compileFor, explainCompile } from '../compile/service.js';
import { callerOf } from '../access/gate.js';
import { RULE_SET_SCHEME } from '../rule-sets/rule-set-source.js';
import { OUTPUT_FORMATS } from '../../core/output/formats.js';

const explainRequest = z
  .object({
    domain: z
      .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
      .openapi({ description: 'The domain (IDN or punycode) or a URL', example: 'ads.example.org' }),
    configuration: z.unknown().optional(),
    ruleSet: z.string().min(1).optional().openapi({ description: 'The id of one of your saved rule sets' }),
    challengeToken: z.string().optional(),
  })
  .refine((b) => (b.configuration === undefined) !== (b.ruleSet === undefined), {
    message: 'give either configuration or ruleSet, not both',
  });

const rule = z.object({
  source: z.string().nullable(),
  line: z.number().int().nullable(),
  text: z.string(),
  name: z.string(),
  kind: z.enum(['block', 'allow']),
  effect: z.enum(['block', 'allow', 'conditional']),
  subdomains: z.boolean(),
  important: z.boolean(),
  modifiers: z.array(z.string()),
});
const explanation = z.object({
  domain: z.string(),
  format: z.enum(OUTPUT_FORMATS),
  blocked: z.boolean(),
  decidedBy: rule.nullable(),
  rules: z.array(rule),
  removed: z.array(rule.extend({ transformation: z.string(), code: z.string(), reason: z.string() })),
});

/** `POST /api/explain`: `flc explain --json`'s answer, from a compile of the compile service. */
export function registerExplainRoutes(app: OpenAPIHono, deps: AppDeps): void {
  app.openapi(
    route({
      ...COMPILE_ROUTE,
      path: '/api/explain',
      badBody: 400,
      summary: 'Why a domain is blocked, or not, by a compiled configuration or saved rule set',
      description:
        'Compiles as POST /api/compile does and answers what flc explain --json prints: the kept rules about ' +
        'the domain and its parents with their source and line, the deciding one, and the rules removed on the ' +
        'way with their step and reason. A rule set (ruleSet) is compiled as saved, without transformations.',
      request: { body: jsonBody(explainRequest) },
      responses: {
        200: jsonResponse('The explanation', explanation),
        400: problemResponse('Malformed JSON, no domain, or neither or both of configuration and ruleSet'),
        422: problemResponse('Not a domain name, an invalid configuration, or a refused source (named)'),
        502: problemResponse('A source failed upstream'),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const raw = body.ruleSet === undefined ? body.configuration : ruleSetConfiguration(body.ruleSet);
      try {
        const { deps: own, config } = compileFor(deps, callerOf(c), raw);
        return c.json(await explainCompile(own, config, body.domain, c.req.raw.signal), 200);
      } catch (e) {
        // The request's fault, as a problem naming it (the compile routes' envelope is theirs alone).
        if (statusOf(e) === 422) refuse(422, clientMessage(e));
        throw e;
      }
    },
  );
}

/** A saved rule set compiled as it is: its one source, no transformations. */
const ruleSetConfiguration = (id: string) => ({
  name: `${RULE_SET_SCHEME}${id}`,
  sources: [{ source: `${RULE_SET_SCHEME}${id}` }],
});
