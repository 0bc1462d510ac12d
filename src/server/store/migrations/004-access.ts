import type { MigrationUp } from './columns.js';
import { idColumn, idType, nowText } from './columns.js';

const features = (asyncCompile: boolean) => JSON.stringify({ maxSources: 20, maxBatch: 10, asyncCompile });
const READ = ['admin:read', 'audit:read', 'metrics:read', 'config:read', 'users:read', 'flags:read'];
const WRITE = [...READ, 'admin:write', 'config:write', 'flags:write'];
const EVERY = [...READ, 'admin:write', 'roles:write', 'roles:assign', 'config:write', 'flags:write', 'users:manage'];

/** Tiers, scopes, roles and endpoint overrides, as the specification's resources define them, seeded. */
export const up: MigrationUp = async (db, engine) => {
  await db.schema
    .createTable('tiers')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('tier_name', 'text', (c) => c.notNull().unique())
    .addColumn('order_rank', 'integer', (c) => c.notNull())
    .addColumn('rate_limit', 'integer', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('features', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull().defaultTo(nowText(engine)))
    .addColumn('updated_at', 'text', (c) => c.notNull().defaultTo(nowText(engine)))
    .execute();
  await db
    .insertInto('tiers')
    .values(
      [
        ['anonymous', 10, 'Anonymous', 'No account', false],
        ['free', 60, 'Free', 'Signed-in users', false],
        ['pro', 300, 'Pro', 'Paying users', true],
        ['admin', 0, 'Admin', 'Operators; no rate limit', true],
      ].map(([tier_name, rate_limit, display_name, description, asyncCompile], order_rank) => ({
        tier_name,
        order_rank,
        rate_limit,
        display_name,
        description,
        features: features(asyncCompile as boolean),
      })),
    )
    .execute();

  await db.schema
    .createTable('scopes')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('scope_name', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('required_tier', 'text', (c) => c.notNull().references('tiers.tier_name'))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db
    .insertInto('scopes')
    .values([
      { scope_name: 'compile', display_name: 'Compile', description: 'Compile filter lists', required_tier: 'free' },
      {
        scope_name: 'rules',
        display_name: 'Rules',
        description: 'Validate rules and walk syntax trees',
        required_tier: 'free',
      },
      {
        scope_name: 'admin',
        display_name: 'Administration',
        description: 'Reach admin routes (with an admin role)',
        required_tier: 'admin',
      },
    ])
    .execute();

  await db.schema
    .createTable('roles')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('role_name', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull().defaultTo(nowText(engine)))
    .addColumn('updated_at', 'text', (c) => c.notNull().defaultTo(nowText(engine)))
    .execute();
  await db
    .insertInto('roles')
    .values(
      [
        { role_name: 'viewer', display_name: 'Viewer', description: 'Reads the admin system', permissions: READ },
        {
          role_name: 'editor',
          display_name: 'Editor',
          description: 'Reads and changes configuration and flags',
          permissions: WRITE,
        },
        { role_name: 'super-admin', display_name: 'Super admin', description: 'Every permission', permissions: EVERY },
      ].map((r) => ({ ...r, permissions: JSON.stringify(r.permissions) })),
    )
    .execute();

  await db.schema
    .createTable('role_assignments')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('identity_user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role_name', 'text', (c) => c.notNull().references('roles.role_name'))
    .addColumn('assigned_by', 'text', (c) => c.notNull())
    .addColumn('assigned_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addUniqueConstraint('role_assignments_user_role', ['identity_user_id', 'role_name'])
    .execute();

  await db.schema
    .createTable('endpoint_overrides')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('path_pattern', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull().defaultTo('*'))
    .addColumn('required_tier', 'text', (c) => c.references('tiers.tier_name'))
    .addColumn('required_scopes', 'text')
    .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
};
