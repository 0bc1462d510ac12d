import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { isSecretColumn, REDACTED } from '../store/secret-columns.js';

/**
 * The PostgreSQL side of the query route's boundary. `SET ROLE` is none for a superuser session
 * (the statement could `RESET ROLE`), so queries run on a connection of their own, logged in as a
 * role that can read nothing but views of the store's tables with `[redacted]` in place of the
 * secret columns. The views live in a schema of their own (`flc_query_<hash of database and
 * schema>`), rebuilt on each start. The role is the one `FLC_QUERY_DATABASE_URL` logs in as, or,
 * when the store's own connection may create roles, one of the same name that the server makes
 * (its random password kept in a table of that schema which the role cannot read). Either way the
 * connection is checked before the route serves: not a superuser, no file or program roles, no
 * right to read a secret column or to write a store table.
 */

export interface QueryConnection {
  /** The low-privilege pool, or null when the route cannot serve. */
  pool: Pool | null;
  /** Why the route cannot serve (null when it can). */
  refusal: string | null;
  /** The role queries run as. */
  role: string | null;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Predefined roles whose members read or write server files or run programs, or read all data. */
const DANGEROUS_ROLES = [
  'pg_read_server_files',
  'pg_write_server_files',
  'pg_execute_server_program',
  'pg_read_all_data',
  'pg_write_all_data',
];

interface Place {
  user: string;
  schema: string;
  database: string;
  superuser: boolean;
  createrole: boolean;
  canCreateSchema: boolean;
}

async function placeOf(client: PoolClient): Promise<Place> {
  const { rows } = await client.query(`select current_user as user, current_schema() as schema,
    current_database() as database, r.rolsuper as superuser, r.rolcreaterole as createrole,
    has_database_privilege(current_database(), 'CREATE') as can_create
    from pg_roles r where r.rolname = current_user`);
  const r = rows[0];
  return {
    user: r.user,
    schema: r.schema,
    database: r.database,
    superuser: r.superuser,
    createrole: r.createrole,
    canCreateSchema: r.can_create,
  };
}

/** The query schema's (and provisioned role's) name for a store. */
export function queryRoleName(database: string, schema: string): string {
  return `flc_query_${createHash('sha256').update(`${database}/${schema}`).digest('hex').slice(0, 16)}`;
}

/** Rebuilds the views of the store's tables in `views` (secret columns as `[redacted]`). */
async function buildViews(client: PoolClient, store: string, views: string): Promise<string[]> {
  await client.query(`create schema if not exists ${ident(views)}`);
  const old = await client.query('select viewname from pg_views where schemaname = $1', [views]);
  for (const v of old.rows) await client.query(`drop view if exists ${ident(views)}.${ident(v.viewname)} cascade`);
  const { rows } = await client.query(
    `select c.table_name, c.column_name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = $1 and t.table_type = 'BASE TABLE' order by c.table_name, c.ordinal_position`,
    [store],
  );
  const tables = new Map<string, string[]>();
  for (const r of rows) tables.set(r.table_name, [...(tables.get(r.table_name) ?? []), r.column_name]);
  for (const [table, columns] of tables) {
    const list = columns.map((c) =>
      isSecretColumn(table, c)
        ? `case when ${ident(c)} is null then null else ${literal(REDACTED)} end as ${ident(c)}`
        : ident(c),
    );
    await client.query(
      `create view ${ident(views)}.${ident(table)} as select ${list.join(', ')} from ${ident(store)}.${ident(table)}`,
    );
  }
  return [...tables.keys()];
}

/** Makes (or updates) the login role `name`; its password is kept in `name.login`. */
async function provisionRole(client: PoolClient, name: string, place: Place): Promise<string> {
  await client.query(`create table if not exists ${ident(name)}.login (password text not null)`);
  await client.query(`revoke all on ${ident(name)}.login from public`);
  let password = (await client.query(`select password from ${ident(name)}.login`)).rows[0]?.password as
    | string
    | undefined;
  const exists = (await client.query('select 1 from pg_roles where rolname = $1', [name])).rowCount;
  if (!password || !exists) {
    password = randomBytes(24).toString('hex');
    await client.query(`delete from ${ident(name)}.login`);
    await client.query(`insert into ${ident(name)}.login (password) values ($1)`, [password]);
  }
  const attributes =
    'login nosuperuser nocreatedb nocreaterole noreplication nobypassrls noinherit connection limit 10 ' +
    `password ${literal(password)}`;
  if (exists) await client.query(`alter role ${ident(name)} ${attributes}`);
  else await client.query(`create role ${ident(name)} ${attributes}`);
  const about = `flc query route of database ${place.database}, schema ${place.schema}`;
  await client.query(`comment on role ${ident(name)} is ${literal(about)}`);
  await client.query(`alter role ${ident(name)} set default_transaction_read_only = on`);
  await client.query(`alter role ${ident(name)} set statement_timeout = '30s'`);
  return password;
}

/** What disqualifies `pool`'s role from running clients' queries, or null. */
export async function disqualify(pool: Pool, store: string): Promise<string | null> {
  const client = await pool.connect();
  try {
    const who = (
      await client.query(`select current_user as user, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls
        from pg_roles where rolname = current_user`)
    ).rows[0];
    if (who.rolsuper) return `the query connection logs in as ${who.user}, a superuser`;
    if (who.rolcreaterole || who.rolcreatedb || who.rolbypassrls)
      return `the query connection's role ${who.user} may create roles or databases or bypass row security`;
    for (const role of DANGEROUS_ROLES) {
      const member = (
        await client.query(
          "select exists(select 1 from pg_roles where rolname = $1) and pg_has_role(current_user, $1, 'member') as m",
          [role],
        )
      ).rows[0].m;
      if (member) return `the query connection's role ${who.user} is a member of ${role}`;
    }
    const tables = (
      await client.query(`select table_name, column_name from information_schema.columns where table_schema = $1`, [
        store,
      ])
    ).rows as { table_name: string; column_name: string }[];
    for (const t of tables) {
      const qualified = `${ident(store)}.${ident(t.table_name)}`;
      if (isSecretColumn(t.table_name, t.column_name)) {
        const r = await client.query("select has_column_privilege($1, $2, 'SELECT') as p", [qualified, t.column_name]);
        if (r.rows[0].p) return `the query connection's role ${who.user} can read ${t.table_name}.${t.column_name}`;
      }
    }
    for (const table of new Set(tables.map((t) => t.table_name))) {
      const r = await client.query("select has_table_privilege($1, 'INSERT,UPDATE,DELETE,TRUNCATE') as p", [
        `${ident(store)}.${ident(table)}`,
      ]);
      if (r.rows[0].p) return `the query connection's role ${who.user} can write ${table}`;
    }
    return null;
  } finally {
    client.release();
  }
}

/** `url` logging in as `user` (with `password`), its `search_path` the query schema. */
function loginUrl(url: string, user: string, password: string | null, schema: string): string {
  const u = new URL(url);
  if (user) u.username = encodeURIComponent(user);
  if (password !== null) u.password = encodeURIComponent(password);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

/**
 * Prepares the query route's connection for the store behind `main`: builds the views, makes the
 * role where it may, checks the connection. Never throws: a failure is the route's refusal.
 */
export async function prepareQueryConnection(
  main: Pool,
  mainUrl: string,
  queryUrl: string | undefined,
): Promise<QueryConnection> {
  let place: Place;
  let name: string;
  let password: string | null = null;
  const client = await main.connect();
  try {
    place = await placeOf(client);
    name = queryRoleName(place.database, place.schema);
    const provision = !queryUrl && (place.superuser || place.createrole);
    if (place.canCreateSchema || place.superuser) {
      await client.query('begin');
      try {
        await client.query('select pg_advisory_xact_lock(hashtext($1))', [name]);
        const tables = await buildViews(client, place.schema, name);
        if (provision) password = await provisionRole(client, name, place);
        const role = provision ? name : queryUrl ? decodeURIComponent(new URL(queryUrl).username) : null;
        if (role && (await client.query('select 1 from pg_roles where rolname = $1', [role])).rowCount) {
          await client.query(`grant usage on schema ${ident(name)} to ${ident(role)}`);
          for (const t of tables) await client.query(`grant select on ${ident(name)}.${ident(t)} to ${ident(role)}`);
        }
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      }
    }
  } catch (err) {
    return { pool: null, role: null, refusal: `the query connection could not be prepared: ${(err as Error).message}` };
  } finally {
    client.release();
  }
  if (!queryUrl && password === null)
    return {
      pool: null,
      role: null,
      refusal:
        `the store's connection (${place.user}) may not make a low-privilege role; ` +
        'set FLC_QUERY_DATABASE_URL (--query-db) to one (docs/security.md)',
    };
  const url = queryUrl ? loginUrl(queryUrl, '', null, name) : loginUrl(mainUrl, name, password, name);
  const pool = new pg.Pool({
    connectionString: url,
    max: 2,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 5_000,
  });
  // A connection a query ended (`pg_terminate_backend` of its own backend) reports it after the
  // query has failed: a listener on every connection keeps that from being an uncaught error.
  pool.on('connect', (c) => c.on('error', () => undefined));
  pool.on('error', () => undefined);
  try {
    const refusal = await disqualify(pool, place.schema);
    if (refusal) {
      await pool.end();
      return { pool: null, role: null, refusal };
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    return { pool: null, role: null, refusal: `the query connection failed: ${(err as Error).message}` };
  }
  return { pool, role: queryUrl ? decodeURIComponent(new URL(queryUrl).username) : name, refusal: null };
}
