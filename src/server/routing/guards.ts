import type { MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import type { AppDeps } from '../deps.js';
import type { UsageRecorder } from '../access/usage.js';
import { accessGate } from '../access/gate.js';
import { gatewayRefusal } from '../access/gateway.js';
import { auditTrail } from '../audit/trail.js';
import { DEFAULT_BODY_LIMIT, limitedBody } from '../body-limit.js';
import { challengeGate, DEFAULT_VERIFY_URL } from '../challenge.js';
import { clientLimitKey, NO_PROXIES, resolveClientAddress, setClientAddress } from '../client-address.js';
import { fixedWindowLimiter } from '../rate-limit.js';
import { problem } from '../problem.js';
import { trpcEnvelope } from '../routes/trpc.js';
import { answerRefusedUpgrade } from '../routes/websocket.js';
import { COMPILE_LIMITS } from '../compile/service.js';
import type { DescribedRoute, RouteGuards } from './route.js';

/**
 * The steps of every described route, built once per app from its dependencies: refusals in the
 * route's protocol, the audit row, the access rule (identity, tier, scopes, permission, rate
 * limit), the access gateway's assertion, the body and stream limits, then the bot challenge.
 */
export function routeGuards(
  deps: AppDeps,
  usage: UsageRecorder,
  log: (message: string) => void,
  routes: () => readonly DescribedRoute[],
): RouteGuards {
  const gate = accessGate(deps, usage, deps.store.rateLimiter('requests'), log);
  const audit = auditTrail(deps, log);
  const challenge = challengeGate(deps.challenge ?? { verifyUrl: DEFAULT_VERIFY_URL });
  const streams = fixedWindowLimiter(60_000, deps.now);
  const gateway: MiddlewareHandler = async (c, next) => {
    const refusal = await gatewayRefusal(c, deps.gateway);
    if (refusal) return problem(c, 403, refusal);
    await next();
  };
  // Without --trust-proxy the address is the socket's peer: behind a proxy, everyone is the proxy.
  let proxyNoted = (deps.trustedProxies ?? NO_PROXIES) !== NO_PROXIES;
  const streamLimit: MiddlewareHandler = async (c, next) => {
    if (!proxyNoted && c.req.header('x-forwarded-for') !== undefined) {
      proxyNoted = true;
      log(
        'requests carry X-Forwarded-For but --trust-proxy is not set: every client behind that proxy ' +
          'shares the per-address limits (streaming, anonymous, sign-in); set --trust-proxy to the proxy',
      );
    }
    if (streams.hit(clientLimitKey(c), COMPILE_LIMITS.streamsPerMinute).limited) {
      c.header('retry-after', '60');
      return problem(c, 429, `Too many streaming requests; at most ${COMPILE_LIMITS.streamsPerMinute} per minute`);
    }
    await next();
  };
  // Hono's `every` composes the steps as it does middleware: a step's returned response is what outer steps see.
  const chains = new WeakMap<DescribedRoute, MiddlewareHandler>();
  const chainOf = (route: DescribedRoute): MiddlewareHandler => {
    const steps = [
      route.transport === 'trpc' ? trpcEnvelope : undefined,
      route.transport === 'websocket' ? answerRefusedUpgrade : undefined,
      route.audit ? audit : undefined,
      gate,
      route.gateway && deps.gateway ? gateway : undefined,
      limitedBody(route.bodyLimit ?? DEFAULT_BODY_LIMIT),
      route.streamLimit ? streamLimit : undefined,
      route.challenge ? challenge : undefined,
    ].filter((s): s is MiddlewareHandler => s !== undefined);
    const chain = every(...steps);
    chains.set(route, chain);
    return chain;
  };
  let listed: readonly DescribedRoute[] | undefined;
  return {
    run: (route, c, next) => (chains.get(route) ?? chainOf(route))(c, next),
    // Read once the app is built, which is before its first request.
    routes: () => (listed ??= routes()),
  };
}

/** Sets the guards and the client's address on every request, for the described routes' steps. */
export function guardsMiddleware(deps: AppDeps, guards: RouteGuards): MiddlewareHandler {
  const trusted = deps.trustedProxies ?? NO_PROXIES;
  return async (c, next) => {
    setClientAddress(c, resolveClientAddress(c, trusted), deps.ipv6LimitPrefix);
    c.set('guards', guards);
    await next();
  };
}
