import { createRequire } from 'node:module';
import { QUERY_FUNCTIONS } from './query-functions.js';
import { sqlSkeleton } from './sql-lexer.js';

/**
 * The first check of `POST /api/admin/neon/query`, on the parsed statement (node-sql-parser, in
 * the engine's dialect): one SELECT (WITH included), no `SELECT INTO`, tables named without a
 * schema, and only the engine's allowed functions, however their names are quoted. It is a second
 * line: the boundary is where the statement runs (the SQLite plan check and views; PostgreSQL's
 * low-privilege query role). The parser reads the text's skeleton cut by the database's own rules
 * (sql-lexer.ts), so that a string or a comment is one for both. A text the parser does not
 * understand is refused.
 */

interface SqlParser {
  astify(sql: string, opts: { database: string }): unknown;
}

const DIALECTS = {
  sqlite: { build: 'node-sql-parser/build/sqlite', database: 'sqlite' },
  postgres: { build: 'node-sql-parser/build/postgresql', database: 'PostgresQL' },
} as const;

const require = createRequire(import.meta.url);
const parsers = new Map<string, SqlParser>();

function parserFor(engine: 'sqlite' | 'postgres'): SqlParser {
  let parser = parsers.get(engine);
  if (!parser) {
    const { Parser } = require(DIALECTS[engine].build) as { Parser: new () => SqlParser };
    parser = new Parser();
    parsers.set(engine, parser);
  }
  return parser;
}

type Node = Record<string, unknown>;

/** Each object of the tree, depth first, on a stack of its own: a deep expression is no deep call stack. */
function* nodes(tree: unknown): Generator<Node> {
  const stack = [tree];
  while (stack.length > 0) {
    const value = stack.pop();
    if (!value || typeof value !== 'object') continue;
    if (!Array.isArray(value)) yield value as Node;
    const children = Array.isArray(value) ? value : Object.values(value);
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]);
  }
}

/** A function node's name as called (quoted or not), lower case, and its schema if one was written. */
function functionName(node: Node): { name: string; schema: string | null } | null {
  if (node.type === 'aggr_func' && typeof node.name === 'string')
    return { name: node.name.toLowerCase(), schema: null };
  if (node.type !== 'function' || !node.name || typeof node.name !== 'object') return null;
  const parts = (node.name as { name?: { value?: unknown }[]; schema?: { value?: unknown } }).name ?? [];
  const last = parts.at(-1)?.value;
  if (typeof last !== 'string') return { name: '(unnamed)', schema: null };
  const schema = (node.name as { schema?: { value?: unknown } }).schema?.value;
  return { name: last.toLowerCase(), schema: typeof schema === 'string' ? schema.toLowerCase() : null };
}

/** Why `text` may not run on `engine`, or null when the parsed statement passes. */
export function refuseStatement(text: string, engine: 'sqlite' | 'postgres'): string | null {
  const cut = sqlSkeleton(text, engine);
  if ('refused' in cut) return cut.refused;
  const sql = cut.skeleton.trim().replace(/(;\s*)+$/, '');
  if (sql.length === 0) return 'The query is empty';
  let ast: unknown;
  try {
    ast = parserFor(engine).astify(sql, { database: DIALECTS[engine].database });
  } catch (e) {
    const first = String((e as Error).message)
      .split('\n')[0]
      .slice(0, 200);
    return `The query is not one SELECT that the checker understands: ${first}`;
  }
  const statements = Array.isArray(ast) ? ast : [ast];
  if (statements.length !== 1) return 'One statement only';
  const statement = statements[0] as Node;
  if (statement.type !== 'select') return 'Only SELECT statements (WITH included) can run';
  const allowed = QUERY_FUNCTIONS[engine];
  for (const node of nodes(statement)) {
    const into = node.into as { position?: unknown } | undefined;
    if (node.type === 'select' && into && into.position != null)
      return 'SELECT INTO writes a table: only reads can run';
    const fn = functionName(node);
    if (fn) {
      if (fn.schema && fn.schema !== 'pg_catalog')
        return `The function ${fn.schema}.${fn.name} is not allowed in a query`;
      if (!allowed.has(fn.name)) return `The function ${fn.name} is not allowed in a query`;
    }
    const schema = node.db ?? node.schema;
    if (typeof node.table === 'string' && typeof schema === 'string' && schema)
      return `Tables are named without a schema (${schema}.${node.table})`;
  }
  return null;
}
