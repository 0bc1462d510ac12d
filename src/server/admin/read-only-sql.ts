/**
 * The first line of defence of `POST /api/admin/neon/query`: one statement that reads. The
 * database is the second (a read-only connection or transaction); this check keeps out what a
 * read-only connection still allows: several statements, attaching files, pragmas, copies.
 */

/** The text with comments and quoted strings or identifiers blanked, so keywords are only code. */
export function codeOnly(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const next = text[i + 1];
    if (ch === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
      out += ' ';
    } else if (ch === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      out += ' ';
    } else if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const close = ch === '[' ? ']' : ch;
      let j = i + 1;
      for (; j < text.length; j += 1) {
        if (text[j] === close) {
          if (close !== ']' && text[j + 1] === close) j += 1;
          else break;
        }
      }
      i = j + 1;
      out += ch === "'" ? " '' " : ' x ';
    } else if (ch === '$') {
      // PostgreSQL dollar quoting: $$…$$ or $tag$…$tag$.
      const tag = /^\$[A-Za-z_]*\$/.exec(text.slice(i))?.[0];
      if (tag) {
        const end = text.indexOf(tag, i + tag.length);
        i = end < 0 ? text.length : end + tag.length;
        out += " '' ";
      } else {
        out += ch;
        i += 1;
      }
    } else {
      out += ch;
      i += 1;
    }
  }
  return out;
}

const FIRST_WORDS: Record<'sqlite' | 'postgres', readonly string[]> = {
  sqlite: ['select', 'with', 'values', 'explain'],
  postgres: ['select', 'with', 'values', 'explain', 'table', 'show'],
};

/** Words that never pass, anywhere in the code: files, pragmas, copies, settings, server functions. */
const REFUSED = [
  'attach',
  'detach',
  'pragma',
  'vacuum',
  'copy',
  'load_extension',
  'set_config',
  'lo_import',
  'lo_export',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_stat_file',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'dblink',
];

/** Why `text` is not one read-only statement for `engine`, or null when it may run. */
export function refuseQuery(text: string, engine: 'sqlite' | 'postgres'): string | null {
  const code = codeOnly(text).trim().replace(/;\s*$/, '');
  if (code.length === 0) return 'The query is empty';
  if (code.includes(';')) return 'One statement only';
  const words = code.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? [];
  const first = words[0] ?? '';
  if (!FIRST_WORDS[engine].includes(first))
    return `Only ${FIRST_WORDS[engine].map((w) => w.toUpperCase()).join(', ')} statements can run`;
  const refused = words.find((w) => REFUSED.includes(w));
  if (refused) return `${refused.toUpperCase()} is not allowed in a read-only query`;
  return null;
}
