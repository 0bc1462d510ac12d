import type { DescribedRoute } from '../routing/route.js';

/** Whether an override's path (exact, or a prefix ending in `/*`) reaches a route's path (`/api/keys/:id`). */
function reaches(pattern: string, routePath: string): boolean {
  const prefix = pattern.endsWith('/*');
  const want = (prefix ? pattern.slice(0, -2) : pattern).split('/');
  const have = routePath.split('/');
  if (prefix ? have.length < want.length : have.length !== want.length) return false;
  return want.every((part, i) => have[i].startsWith(':') || have[i] === part);
}

/**
 * Whether an override's path names a parameter (`:id`, `{id}`): the gate compares an override with
 * the path asked for as it is, which never holds one, so such an override reaches nothing.
 */
export const namesParameter = (pattern: string) =>
  pattern.split('/').some((part) => part.startsWith(':') || part.includes('{'));

/** Routes whose rule no override changes: administrators' routes, and the session-only ones. */
const fixed = (r: DescribedRoute) =>
  (typeof r.access === 'object' && 'admin' in r.access) || r.access === 'session' || r.access === 'own-session';

/**
 * Why an endpoint override of `pathPattern` and `method` would change nothing, or null when it
 * reaches a route whose access rule it can change: overrides apply to the route descriptors' rules,
 * never to an administrator's route nor to the kind of credential a session-only route takes.
 * The one check of an override, for `POST /admin/system/endpoints` and the configuration import.
 */
export function overrideRefusal(routes: readonly DescribedRoute[], pathPattern: string, method: string): string | null {
  if (namesParameter(pathPattern))
    return `${pathPattern} names a parameter: an override takes a path as asked (/api/rules/42) or a prefix (…/*)`;
  const reached = routes.filter((r) => (method === '*' || r.method === method) && reaches(pathPattern, r.path));
  if (reached.length === 0) return `No route answers ${method} ${pathPattern}, so an override of it would do nothing`;
  if (reached.every(fixed))
    return (
      `${method} ${pathPattern} reaches administrators' routes only (or session-only ones), ` +
      'whose access an override cannot change'
    );
  return null;
}
