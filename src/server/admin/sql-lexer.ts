/**
 * The query text as the database will read it, for the parser check (sql-guard.ts). The parser and
 * the database do not split a text the same way: node-sql-parser reads `\'` inside a string as an
 * escaped quote and `#` as a comment (SQLite), PostgreSQL nests block comments and reads `'\'` as
 * a whole string. Where they disagree, what the parser took for a string or a comment the database
 * may run as code. So the text is first cut into strings, quoted names and comments by the
 * database's own rules (PostgreSQL's with `standard_conforming_strings` on, which the query
 * connection forces), and the parser is given a skeleton in which each string is a plain
 * `'...'` of letters, digits and `_`, each quoted name a plain `"..."`, and each comment a space:
 * a text on which both read the same tokens. Code characters whose reading differs (a backslash,
 * `#`, `$`, `?`, SQLite's `:`/`@` parameters, PostgreSQL's backticks) are refused.
 */

export type Engine = 'sqlite' | 'postgres';

const IDENT = /[A-Za-z0-9_\u0080-\uffff$]/;
const isIdent = (c: string | undefined) => c !== undefined && IDENT.test(c);

/** Characters allowed in code (outside strings, names and comments), per engine. */
const CODE: Record<Engine, RegExp> = {
  sqlite: /[A-Za-z0-9_ \t\n\r\f+\-*/%<>=!|&~^(),.;]/,
  postgres: /[A-Za-z0-9_ \t\n\r\f\v+\-*/%<>=!|&~^(),.;:[\]@]/,
};

/** A string literal's content as the parser sees it: only characters that mean nothing to either. */
const plain = (content: string) => content.replace(/[^A-Za-z0-9 ]/g, '_');

/** The skeleton of `text` for the parser, or why the text cannot be read the same way by both. */
export function sqlSkeleton(text: string, engine: Engine): { skeleton: string } | { refused: string } {
  const pg = engine === 'postgres';
  const out: string[] = [];
  let i = 0;
  const refuse = (what: string) => ({ refused: `${what} (at character ${i + 1}) is not accepted in a query` });
  /** The end of a quoted run opened at `i` by `q`, the quote doubled inside it; -1 when unterminated. */
  const closing = (q: string, from: number) => {
    for (let j = from; j < text.length; j += 1) {
      if (text[j] !== q) continue;
      if (text[j + 1] === q) j += 1;
      else return j;
    }
    return -1;
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '-' && next === '-') {
      // PostgreSQL ends a line comment at CR or LF, SQLite at LF only.
      let end = i + 2;
      while (end < text.length && text[end] !== '\n' && !(pg && text[end] === '\r')) end += 1;
      out.push(' ');
      i = end;
      continue;
    }
    if (c === '/' && next === '*') {
      // PostgreSQL nests block comments; SQLite ends at the first `*/` (or at the end of the text).
      let depth = 1;
      let j = i + 2;
      while (j < text.length && depth > 0) {
        if (text[j] === '*' && text[j + 1] === '/') {
          depth -= 1;
          j += 2;
        } else if (pg && text[j] === '/' && text[j + 1] === '*') {
          depth += 1;
          j += 2;
        } else j += 1;
      }
      if (depth > 0 && pg) return refuse('An unterminated comment');
      out.push(' ');
      i = j;
      continue;
    }
    const prefixed = !isIdent(text[i - 1]);
    if (pg && prefixed && (c === 'u' || c === 'U') && next === '&') return refuse('A U& Unicode escape string');
    if (pg && prefixed && (c === 'e' || c === 'E') && next === "'") {
      // An escape string: a backslash escapes the next character, `''` is a quote.
      let j = i + 2;
      for (; j < text.length; j += 1) {
        if (text[j] === '\\') j += 1;
        else if (text[j] === "'") {
          if (text[j + 1] === "'") j += 1;
          else break;
        }
      }
      if (j >= text.length) return refuse('An unterminated string');
      out.push(`'${plain(text.slice(i + 2, j))}'`);
      i = j + 1;
      continue;
    }
    if (c === "'") {
      const end = closing("'", i + 1);
      if (end < 0) return refuse('An unterminated string');
      out.push(`'${plain(text.slice(i + 1, end))}'`);
      i = end + 1;
      continue;
    }
    if (c === '"' || (!pg && c === '`')) {
      const end = closing(c, i + 1);
      if (end < 0) return refuse('An unterminated quoted name');
      const name = text.slice(i + 1, end).replaceAll(c + c, c);
      if (/["\\`]/.test(name)) return refuse('A quoted name holding a quote or a backslash');
      out.push(`"${name}"`);
      i = end + 1;
      continue;
    }
    if (!pg && c === '[') {
      const end = text.indexOf(']', i + 1);
      if (end < 0) return refuse('An unterminated [name]');
      const name = text.slice(i + 1, end);
      if (/["\\`]/.test(name)) return refuse('A [name] holding a quote or a backslash');
      out.push(`"${name}"`);
      i = end + 1;
      continue;
    }
    if (pg && c === '$' && prefixed) {
      const tag = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(text.slice(i))?.[0];
      if (!tag) return refuse('A $ parameter');
      const end = text.indexOf(tag, i + tag.length);
      if (end < 0) return refuse('An unterminated $ string');
      out.push(`'${plain(text.slice(i + tag.length, end))}'`);
      i = end + tag.length;
      continue;
    }
    if (!CODE[engine].test(c)) return refuse(`The character ${JSON.stringify(c)}`);
    out.push(c);
    i += 1;
  }
  return { skeleton: out.join('') };
}
