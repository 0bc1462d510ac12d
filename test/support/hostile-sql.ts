/**
 * Hostile SQL texts for the admin query route (issue 30): expressions that would read or write
 * files, load code, change settings or return secret columns, each in several wrappings, and whole
 * statements that write, attach, set or copy. Paths name a marker file whose text must never come
 * back and a prefix under which nothing may be written.
 */
const q = (s: string) => `'${s}'`;

/** Expressions that reach files, code, settings or secrets, per engine, as a query's column. */
function sqliteAttacks(MARKER_FILE: string, DROP: string, dir: string): string[] {
  const fn = (name: string) => [name, `"${name}"`, `[${name}]`, `\`${name}\``, name.toUpperCase(), `main.${name}`];
  const out: string[] = [];
  for (const f of fn('readfile')) out.push(`cast(${f}(${q(MARKER_FILE)}) as text)`, `${f}('/etc/passwd')`);
  for (const f of fn('writefile')) out.push(`${f}(${q(`${DROP}-w`)}, 'x', 493)`);
  for (const f of fn('load_extension'))
    out.push(`${f}(${q(`${dir}/x`)})`, `${f}('/usr/lib/x86_64-linux-gnu/libc.so.6')`);
  out.push(
    "edit('x', 'true')",
    'hex(zeroblob(500000))',
    'randomblob(100000000)',
    "printf('%.*c', 200000000, 'x')",
    'sqlite_compileoption_get(0)',
    '(select group_concat(password_hash) from main.users)',
    '(select password_salt from main.users limit 1)',
    '(select token_hash from main.sessions limit 1)',
    '(select key_hash from main.api_keys limit 1)',
    "(select count(*) from main.sessions where token_hash > 'm')",
    "(select count(*) from main.users where password_hash like 'a%')",
    '(select substr(password_hash, 1, 1) from main."users")',
    '(select max(token) from main.flash_messages)',
    "(select name from fsdir('/etc') limit 1)",
    "(select count(*) from pragma_table_info('users'))",
    "(select value from json_each('[1]'))",
  );
  return out;
}

function sqliteStatements(DROP: string): string[] {
  return [
    `attach ${q(`${DROP}-attach.db`)} as a`,
    `vacuum into ${q(`${DROP}-vacuum.db`)}`,
    'pragma query_only = 0',
    'pragma journal_mode = delete',
    'pragma writable_schema = 1',
    'pragma user_version = 7',
    'insert into users (id, email) values (1, 2)',
    "update main.users set role = 'admin'",
    'delete from main.sessions',
    'drop table main.rule_sets',
    'create table main.t (x)',
    'create temp view v as select password_hash from main.users',
    'select * from main.users',
    'select * from main.sessions',
    'select * from main.api_keys',
    'select 1; delete from main.users',
    `select 1; attach ${q(`${DROP}-2.db`)} as b`,
    "select * from users where 1 = 1; select writefile('x', 'y')",
    'with x as (select * from main.users) select password_hash from x',
    'select u.password_hash from main.users u join main.sessions s on s.user_id = u.id',
    'select * from main.users natural join main.sessions',
    'replace into main.tiers (tier_name) values (1)',
    'reindex',
    'analyze',
    'begin immediate',
  ];
}

function postgresAttacks(MARKER_FILE: string, DROP: string, schema: string, querySchema: string): string[] {
  const fn = (name: string) => [
    name,
    `"${name}"`,
    name.toUpperCase(),
    `pg_catalog.${name}`,
    `"pg_catalog"."${name}"`,
    `U&"\\0070${name.slice(1)}"`,
  ];
  const out: string[] = [];
  for (const f of fn('pg_read_file')) out.push(`${f}(${q(MARKER_FILE)})`, `${f}('/etc/passwd')`);
  for (const f of fn('pg_read_binary_file')) out.push(`encode(${f}(${q(MARKER_FILE)}), 'escape')`);
  for (const f of fn('pg_ls_dir')) out.push(`${f}('/')`);
  for (const f of fn('pg_stat_file')) out.push(`${f}(${q(MARKER_FILE)})`);
  for (const f of fn('lo_import')) out.push(`${f}(${q(MARKER_FILE)})`);
  for (const f of fn('set_config'))
    out.push(`${f}('statement_timeout', '0', false)`, `${f}('role', 'postgres', false)`);
  out.push(
    `lo_export(1, ${q(`${DROP}-lo`)})`,
    'pg_reload_conf()',
    'pg_terminate_backend(pg_backend_pid())',
    "current_setting('data_directory')",
    "current_setting('hba_file')",
    'pg_sleep(0)',
    "repeat('x', 500000000)",
    "lpad('x', 500000000)",
    '(select rolpassword from pg_authid limit 1)',
    '(select passwd from pg_shadow limit 1)',
    "(select setting from pg_settings where name = 'data_directory')",
    `(select password from ${querySchema}.login)`,
    `(select password from "${querySchema}"."login")`,
    '(select password from login)',
    `(select password_hash from ${schema}.users limit 1)`,
    `(select password_hash from "${schema}"."users" limit 1)`,
    `(select token_hash from ${schema}.sessions limit 1)`,
    `(select key_hash from ${schema}.api_keys limit 1)`,
    `(select count(*) from ${schema}.sessions where token_hash > 'm')`,
    `(select string_agg(password_salt, ',') from ${schema}.users)`,
    '(select query from pg_stat_activity limit 1)',
    "dblink('dbname=postgres', 'select 1')",
    "query_to_xml('select pg_read_file(''/etc/passwd'')', true, true, '')",
    "xpath('/x', query_to_xml('select 1', true, true, ''))",
    'txid_current()',
    "pg_notify('x', 'y')",
    "nextval('deployments_id_seq')",
    'pg_advisory_lock(1)',
  );
  return out;
}

function postgresStatements(DROP: string, schema: string): string[] {
  return [
    `copy (select 1) to ${q(`${DROP}-copy`)}`,
    "copy users from program 'id'",
    `copy ${schema}.users to stdout`,
    "alter system set log_statement = 'all'",
    'set role postgres',
    'reset role',
    'set session authorization postgres',
    'set statement_timeout = 0',
    "do $$ begin perform pg_read_file('/etc/passwd'); end $$",
    `create table ${schema}.t (x int)`,
    `insert into ${schema}.users (id) values ('x')`,
    `update ${schema}.users set role = 'admin'`,
    `delete from ${schema}.sessions`,
    `drop table ${schema}.rule_sets`,
    "select 1; select pg_read_file('/etc/passwd')",
    'select 1; set role postgres',
    `select * from ${schema}.users`,
    `select * from "${schema}".users`,
    `with x as (select * from ${schema}.users) select password_hash from x`,
    `select u.password_hash from ${schema}.users u join ${schema}.sessions s on s.user_id = u.id`,
    `with x as (delete from ${schema}.sessions returning *) select * from x`,
    'select * from users for update',
    'lock table users',
    'listen x',
    "prepare p as select pg_read_file('/etc/passwd')",
    'explain analyze select 1',
    "select pg_read_file(x) from (values ('/etc/passwd')) v(x)",
    "select * from pg_read_file('/etc/passwd') as f(t)",
    "select * from pg_ls_dir('/') as d",
    'table pg_authid',
  ];
}

/** Wrappings of an expression: quoting, comments, case, CTEs, subqueries, unions, several statements. */
const WRAPS: ((e: string) => string)[] = [
  (e) => `select ${e}`,
  (e) => `/* ok */ SELECT ${e} -- note`,
  (e) => `with x(v) as (select ${e}) select v from x`,
  (e) => `select (select ${e}) as "innocent"`,
  (e) => `select 1 union all select ${e}`,
  (e) => `select 1; select ${e}`,
  (e) => `select email, ${e} from users`,
];

/** Every hostile text for each engine. */
export function hostileSql(markerFile: string, drop: string) {
  const dir = markerFile.slice(0, markerFile.lastIndexOf('/'));
  return {
    sqlite: () => [
      ...sqliteAttacks(markerFile, drop, dir).flatMap((e) => WRAPS.map((w) => w(e))),
      ...sqliteStatements(drop),
    ],
    postgres: (schema: string, querySchema: string) => [
      ...postgresAttacks(markerFile, drop, schema, querySchema).flatMap((e) => WRAPS.map((w) => w(e))),
      ...postgresStatements(drop, schema),
    ],
  };
}
