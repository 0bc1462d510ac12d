import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from '../server/deps.js';
import { registerAccountPages } from './account.js';
import { ADMIN_NAV, registerAdminPeoplePages } from './admin.js';
import { registerAdminConfigPages } from './admin-config.js';
import { registerAdminOpsPages } from './admin-ops.js';
import { JOBS_ACCESS, registerJobPages } from './jobs.js';
import { ACCOUNT_ACCESS, RULE_SETS_ACCESS, registerMyAccountPages } from './my-account.js';
import { registerAssets } from './assets.js';
import { registerCompilePages } from './compile/pages.js';
import { registerRulePages } from './rules.js';
import { consolePolicy, contentSecurityPolicy } from './csp.js';
import { CHALLENGE_ORIGIN, challengeSiteKey, type ConsoleContext } from './frame.js';
import type { ConsolePage } from './pages.js';
import { consoleSession } from './session.js';

/**
 * The pages the navigation lists, in its order, each with the access rule its route declares.
 * A page module registers its routes with `consoleRoute` and adds its entry here.
 */
export const CONSOLE_PAGES: ConsolePage[] = [
  { path: '/console/compile', title: 'Compile', access: { tier: 'free', scope: 'compile' } },
  { path: '/console/rules', title: 'Rules', access: { tier: 'free', scope: 'rules' } },
  { path: '/console/jobs', title: 'Jobs', access: JOBS_ACCESS },
  { path: '/console/account', title: 'Account', access: ACCOUNT_ACCESS },
  { path: '/console/account/rule-sets', title: 'Rule sets', access: RULE_SETS_ACCESS },
  ...ADMIN_NAV,
];

/**
 * The web console, mounted on the server app (`createApp`'s `console` hook): server-rendered
 * pages over the same session store, access gate and services as the API.
 */
export function mountConsole(app: OpenAPIHono, deps: AppDeps, log: (message: string) => void): void {
  app.use('*', contentSecurityPolicy(consolePolicy(challengeSiteKey(deps) ? CHALLENGE_ORIGIN : undefined)));
  app.use('*', consoleSession());
  const ctx: ConsoleContext = { deps, app, pages: CONSOLE_PAGES, assets: registerAssets(app), log };
  registerAccountPages(app, ctx);
  registerCompilePages(app, ctx);
  registerRulePages(app, ctx);
  registerJobPages(app, ctx);
  registerMyAccountPages(app, ctx);
  registerAdminPeoplePages(app, ctx);
  registerAdminConfigPages(app, ctx);
  registerAdminOpsPages(app, ctx);
}
