import type { MigrationUp } from './columns.js';
import { idColumn, idType, nowText } from './columns.js';

/**
 * The rest of the admin system: announcements, the append-only audit log, feature flags, user
 * and API groups (with user memberships) and configuration snapshots.
 */
export const up: MigrationUp = async (db, engine) => {
  const stamps = (t: ReturnType<typeof db.schema.createTable>) =>
    t
      .addColumn('created_at', 'text', (c) => c.notNull().defaultTo(nowText(engine)))
      .addColumn('updated_at', 'text', (c) => c.notNull().defaultTo(nowText(engine)));
  // Overrides are named by path and method in bundles: one of each.
  await db.schema
    .createIndex('endpoint_overrides_path_method')
    .unique()
    .on('endpoint_overrides')
    .columns(['path_pattern', 'method'])
    .execute();
  await stamps(
    db.schema
      .createTable('announcements')
      .addColumn('id', idType(engine), idColumn(engine))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('severity', 'text', (c) => c.notNull().defaultTo('info'))
      .addColumn('active_from', 'text')
      .addColumn('active_until', 'text')
      .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('created_by', 'text', (c) => c.notNull().defaultTo('')),
  ).execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('actor_id', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text')
    .addColumn('old_values', 'text')
    .addColumn('new_values', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_id', 'id']).execute();

  await db.schema
    .createTable('feature_flags')
    .addColumn('flag_key', 'text', (c) => c.primaryKey())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute();

  await stamps(
    db.schema
      .createTable('user_groups')
      .addColumn('id', idType(engine), idColumn(engine))
      .addColumn('group_name', 'text', (c) => c.notNull().unique())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1)),
  ).execute();
  await db.schema
    .createTable('user_group_members')
    .addColumn('group_name', 'text', (c) =>
      c.notNull().references('user_groups.group_name').onDelete('cascade').onUpdate('cascade'),
    )
    .addColumn('identity_user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('added_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_group_members_pk', ['group_name', 'identity_user_id'])
    .execute();
  await stamps(
    db.schema
      .createTable('api_groups')
      .addColumn('id', idType(engine), idColumn(engine))
      .addColumn('group_name', 'text', (c) => c.notNull().unique())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('scopes', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1)),
  ).execute();

  await db.schema
    .createTable('config_snapshots')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('bundle', 'text', (c) => c.notNull())
    .execute();
};
