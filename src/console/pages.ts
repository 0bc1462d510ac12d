import type { Handler } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { z } from '@hono/zod-openapi';
import type { Caller } from '../server/access/gate.js';
import { PERMISSIONS } from '../server/routes/admin-system/permissions.js';
import { type Access, plainRoute } from '../server/routing/route.js';

/**
 * A console page: its path, its title in the navigation, and its access rule, the same rule type
 * API routes declare. The gate enforces the rule on every request to the page (a signed-out or
 * refused browser is sent to `/login?flash=…`); the navigation only uses it to leave out what the
 * caller cannot open.
 */
export interface ConsolePage {
  path: string;
  title: string;
  access: Access;
}

/** Ranks of the tiers a page can ask for, as migration 004 seeds them (the gate reads the table). */
const TIER_RANK = { free: 1, pro: 2 } as const;

/** Whether the navigation shows a page to `caller` (the gate still decides on the request itself). */
export async function mayOpen(access: Access, caller: Caller): Promise<boolean> {
  if (access === 'public' || access === 'public-unmetered') return true;
  const user = caller.user;
  if (!user || caller.key) return false;
  if (typeof access === 'string') return true;
  if ('admin' in access) {
    if (user.role !== 'admin' || user.tier !== 'admin') return false;
    if (access.admin === null) return true;
    const granted = await caller.permissions();
    return (access.admin === '*' ? PERMISSIONS : [access.admin]).every((p) => granted.has(p));
  }
  if (caller.tier.orderRank < TIER_RANK[access.tier]) return false;
  return access.scope === undefined || caller.scopes().has(access.scope);
}

/** The pages of `pages` the caller may open, in their order. */
export async function navFor(pages: readonly ConsolePage[], caller: Caller): Promise<ConsolePage[]> {
  const open = await Promise.all(pages.map((p) => mayOpen(p.access, caller)));
  return pages.filter((_, i) => open[i]);
}

/** What a console route declares: its method, path (`{id}` for a parameter) and access rule. */
export interface ConsoleRoute {
  method: 'get' | 'post';
  path: string;
  access: Access;
  summary: string;
  bodyLimit?: number;
  streamLimit?: boolean;
  params?: z.ZodObject;
}

/**
 * Registers a console route through the server's route descriptors, so its access rule, body
 * limit and stream limit run as the API routes' do, and it is listed with them.
 */
export function consoleRoute(app: OpenAPIHono, r: ConsoleRoute, handler: Handler): void {
  const { params, ...facts } = r;
  plainRoute(app, {
    ...facts,
    tags: ['Console'],
    ...(params ? { request: { params } } : {}),
    responses: {
      200: { description: 'An HTML page or fragment of the web console' },
      303: { description: 'After a form: the page to see next' },
    },
    handlers: [handler],
  });
}
