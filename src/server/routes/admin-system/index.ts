import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import { registerRoleRoutes } from './roles.js';
import { registerAccessConfigRoutes } from './access-config.js';
import { registerAnnouncementRoutes } from './announcements.js';
import { registerAuditRoutes } from './audit.js';
import { registerContextRoutes } from './context.js';
import { registerFeatureFlagRoutes } from '../feature-flags.js';
import { registerConfigBundleRoutes } from './config-bundle.js';
import { registerDataSubjectRoutes } from './data-subject.js';

/** The admin system (`/admin/system/*`) and the feature flags (`/admin/config/feature-flags`). */
export function registerAdminSystemRoutes(app: OpenAPIHono, deps: AppDeps): void {
  registerRoleRoutes(app, deps);
  registerContextRoutes(app, deps);
  registerAccessConfigRoutes(app, deps);
  registerAnnouncementRoutes(app, deps);
  registerAuditRoutes(app, deps);
  registerFeatureFlagRoutes(app, deps);
  registerConfigBundleRoutes(app, deps);
  registerDataSubjectRoutes(app, deps);
}
