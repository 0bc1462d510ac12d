/**
 * The store's secret columns, in one list: the storage routes show them as `[redacted]`, the query
 * route's views hold `[redacted]` in their place and its checks refuse to read them.
 */
export const SECRET_COLUMNS: ReadonlyMap<string, readonly string[]> = new Map([
  ['users', ['password_hash', 'password_salt', 'password_iterations']],
  ['sessions', ['token_hash']],
  ['api_keys', ['key_hash']],
  ['flash_messages', ['token']],
]);

/** Names that a secret column of a table this release does not know (a later one's) would carry. */
const SECRET_NAME = /hash|salt|secret|password|token/i;

/** Whether `column` of `table` holds a secret (a listed column, or one named like one). */
export function isSecretColumn(table: string, column: string): boolean {
  return SECRET_COLUMNS.get(table)?.includes(column) === true || SECRET_NAME.test(column);
}

/** What a secret value is shown as. */
export const REDACTED = '[redacted]';
