import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { isSecretColumn, REDACTED } from '../store/secret-columns.js';
import type { StopBackend } from './postgres-query.js';

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
  /** Cancels or terminates a query backend from outside it (null when the route cannot serve). */
  stop: StopBackend | null;
}

const ident = pg.escapeIdentifier;
const literal = pg.escapeLiteral;

/**
 * Predefined roles whose members read or write server files, run programs, read or write all
 * data, or signal other backends. Membership of any other predefined role is refused as well.
 */
const DANGEROUS_ROLES = [
  'pg_read_server_files',
  'pg_write_server_files',
  'pg_execute_server_program',
  'pg_read_all_data',
  'pg_write_all_data',
  'pg_signal_backend',
];

/** Settings the provisioned role starts each session with (a session may still lower them: see postgres-query.ts). */
const ROLE_SETTINGS: [string, string][] = [
  ['default_transaction_read_only', 'on'],
  ['statement_timeout', "'30s'"],
  ['idle_in_transaction_session_timeout', "'60s'"],
  ['standard_conforming_strings', 'on'],
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
    has_database_privilege(current_database(), 'CREATE') as "canCreateSchema"
    from pg_roles r where r.rolname = current_user`);
  return rows[0];
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
  for (const [setting, value] of ROLE_SETTINGS)
    await client.query(`alter role ${ident(name)} set ${setting} = ${value}`);
  // A membership is a SET ROLE path (NOINHERIT or not): the role is a member of nothing.
  const { rows } = await client.query(
    `select r.rolname from pg_auth_members m join pg_roles r on r.oid = m.roleid
      where m.member = (select oid from pg_roles where rolname = $1)`,
    [name],
  );
  for (const r of rows) await client.query(`revoke ${ident(r.rolname)} from ${ident(name)}`);
  return password;
}

const ABOUT = /^flc query route of database (.+), schema (.+)$/;

/**
 * Drops the query roles this server made for stores that are gone (their database dropped, or
 * their schema in this database), with their view schemas, so that roles do not pile up in the
 * cluster. Only roles whose comment and name match what `provisionRole` makes are looked at; a
 * role that cannot be dropped (privileges left in another database) is left. Names those dropped.
 */
export async function dropStaleQueryRoles(client: PoolClient, current: string): Promise<string[]> {
  const { rows } = await client.query(`select rolname, shobj_description(oid, 'pg_authid') as about
    from pg_roles where rolname like 'flc\\_query\\_%'`);
  const databases = new Set((await client.query('select datname from pg_database')).rows.map((r) => r.datname));
  const dropped: string[] = [];
  for (const r of rows as { rolname: string; about: string | null }[]) {
    const m = ABOUT.exec(r.about ?? '');
    if (!m || r.rolname !== queryRoleName(m[1], m[2])) continue;
    const here = m[1] === current;
    const gone =
      !databases.has(m[1]) ||
      (here && !(await client.query('select 1 from pg_namespace where nspname = $1', [m[2]])).rowCount);
    if (!gone) continue;
    try {
      await client.query('begin');
      if (here) {
        await client.query(`drop schema if exists ${ident(r.rolname)} cascade`);
        await client.query(`drop owned by ${ident(r.rolname)}`);
      }
      await client.query(`drop role ${ident(r.rolname)}`);
      await client.query('commit');
      dropped.push(r.rolname);
    } catch {
      await client.query('rollback').catch(() => undefined);
    }
  }
  return dropped;
}

/**
 * What disqualifies `pool`'s role from running clients' queries, or null. A role the query role
 * is a member of, directly or through others, is one `SET ROLE` (or `set_config('role', …)`)
 * reaches whatever INHERIT says, so each such role is checked as the query role itself is.
 */
export async function disqualify(pool: Pool, store: string): Promise<string | null> {
  const client = await pool.connect();
  try {
    const reachable = (
      await client.query(`select r.rolname, r.rolname = current_user as self, r.rolsuper, r.rolcreaterole,
        r.rolcreatedb, r.rolbypassrls, r.rolreplication from pg_roles r
        where pg_has_role(current_user, r.oid, 'MEMBER') order by r.rolname = current_user desc, r.rolname`)
    ).rows as {
      rolname: string;
      self: boolean;
      rolsuper: boolean;
      rolcreaterole: boolean;
      rolcreatedb: boolean;
      rolbypassrls: boolean;
      rolreplication: boolean;
    }[];
    const user = reachable[0].rolname;
    const tables = (
      await client.query(`select table_name, column_name from information_schema.columns where table_schema = $1`, [
        store,
      ])
    ).rows as { table_name: string; column_name: string }[];
    const reach = ' (SET ROLE reaches it)';
    for (const role of reachable) {
      const who = role.self
        ? `the query connection's role ${user}`
        : `the query connection's role ${user} is a member of ${role.rolname}, which`;
      if (role.rolsuper)
        return role.self ? `the query connection logs in as ${user}, a superuser` : `${who} is a superuser${reach}`;
      if (role.rolcreaterole || role.rolcreatedb || role.rolbypassrls || role.rolreplication)
        return `${who} may create roles or databases, replicate or bypass row security${role.self ? '' : reach}`;
      if (!role.self && (role.rolname.startsWith('pg_') || DANGEROUS_ROLES.includes(role.rolname)))
        return `the query connection's role ${user} is a member of ${role.rolname}`;
      for (const t of tables) {
        if (!isSecretColumn(t.table_name, t.column_name)) continue;
        const qualified = `${ident(store)}.${ident(t.table_name)}`;
        const r = await client.query("select has_column_privilege($1, $2, $3, 'SELECT') as p", [
          role.rolname,
          qualified,
          t.column_name,
        ]);
        if (r.rows[0].p) return `${who} can read ${t.table_name}.${t.column_name}`;
      }
      for (const table of new Set(tables.map((t) => t.table_name))) {
        const r = await client.query("select has_table_privilege($1, $2, 'INSERT,UPDATE,DELETE,TRUNCATE') as p", [
          role.rolname,
          `${ident(store)}.${ident(table)}`,
        ]);
        if (r.rows[0].p) return `${who} can write ${table}`;
      }
    }
    return null;
  } finally {
    client.release();
  }
}

/**
 * Signals a query backend: from the store's connection (a superuser's, or one with
 * `pg_signal_backend`), else from a connection of the query role itself, which may signal its
 * own backends. Both are outside the query's connection, so nothing the query sets can stop it.
 */
function backendStopper(main: Pool, queryUrl: string): StopBackend {
  return async (pid, how) => {
    const fn = how === 'cancel' ? 'pg_cancel_backend' : 'pg_terminate_backend';
    const sent = await main.query(`select ${fn}($1) as sent`, [pid]).then(
      (r) => r.rows[0]?.sent === true,
      () => false,
    );
    if (sent) return;
    const own = new pg.Client({ connectionString: queryUrl, connectionTimeoutMillis: 5_000 });
    own.on('error', () => undefined);
    try {
      await own.connect();
      await own.query(`select ${fn}($1)`, [pid]);
    } finally {
      await own.end().catch(() => undefined);
    }
  };
}

/** `url` logging in as `user` (with `password`), its `search_path` the query schema. */
function loginUrl(url: string, user: string, password: string | null, schema: string): string {
  const u = new URL(url);
  if (user) u.username = encodeURIComponent(user);
  if (password !== null) u.password = encodeURIComponent(password);
  // Strings are read with standard_conforming_strings on, as the parser check reads them (sql-lexer.ts).
  u.searchParams.set('options', `-c search_path=${schema} -c standard_conforming_strings=on`);
  return u.toString();
}

/** A connection the route cannot serve on, and why. */
const refused = (refusal: string): QueryConnection => ({ pool: null, role: null, stop: null, refusal });

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
    if (provision) await dropStaleQueryRoles(client, place.database).catch(() => undefined);
  } catch (err) {
    return refused(`the query connection could not be prepared: ${(err as Error).message}`);
  } finally {
    client.release();
  }
  if (!queryUrl && password === null)
    return refused(
      `the store's connection (${place.user}) may not make a low-privilege role; ` +
        'set FLC_QUERY_DATABASE_URL (--query-db) to one (docs/security.md)',
    );
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
      return refused(refusal);
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    return refused(`the query connection failed: ${(err as Error).message}`);
  }
  const role = queryUrl ? decodeURIComponent(new URL(queryUrl).username) : name;
  return { pool, role, stop: backendStopper(main, url), refusal: null };
}
