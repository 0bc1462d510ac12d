/**
 * The functions a query of `POST /api/admin/neon/query` may call, per engine: computations on
 * values only. Nothing that reads or writes files, loads code, changes a setting, sleeps, makes
 * large values out of small ones (`zeroblob`, `repeat`, `lpad`, PostgreSQL's `format` with a
 * width) or reaches another connection. (SQLite's `printf`/`format` stay: the query's process
 * caps SQLite's heap at 64 MB, so a wide value fails the query there.)
 * SQLite enforces its list on the compiled statement (sqlite-plan-check.ts); the parser check
 * (sql-guard.ts) applies both lists as a second line.
 */

const words = (text: string) => text.trim().split(/\s+/);

const COMMON = words(`
  avg count max min sum
  row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
  lower upper length substr substring trim ltrim rtrim replace concat concat_ws coalesce nullif
  instr unicode char current_date current_time current_timestamp
  abs round sign ceil ceiling floor trunc mod power pow sqrt exp ln log log10 pi degrees radians
`);

const SQLITE_ONLY = words(`
  group_concat string_agg total
  format ifnull iif typeof hex quote printf glob like likely unlikely likelihood octet_length soundex log2
  sqlite_version
  date time datetime julianday unixepoch strftime timediff
  json json_array json_array_length json_extract -> ->> json_object json_type json_valid json_quote
  json_group_array json_group_object json_error_position
`);

const POSTGRES_ONLY = words(`
  string_agg array_agg json_agg jsonb_agg json_object_agg jsonb_object_agg bool_and bool_or every
  char_length character_length octet_length left right btrim split_part strpos position starts_with
  initcap reverse md5 to_char to_number greatest least cbrt div
  now localtime localtimestamp date_trunc date_part
  extract age to_timestamp to_date make_date make_interval justify_interval isfinite
  json_build_object jsonb_build_object json_build_array jsonb_build_array json_array_length
  jsonb_array_length json_extract_path jsonb_extract_path json_extract_path_text
  jsonb_extract_path_text json_typeof jsonb_typeof to_json to_jsonb jsonb_pretty array_length
  cardinality unnest json_array_elements jsonb_array_elements json_array_elements_text
  jsonb_array_elements_text json_each jsonb_each json_each_text jsonb_each_text json_object_keys
  jsonb_object_keys
`);

/** The functions each engine's queries may call (lower case). */
export const QUERY_FUNCTIONS: Readonly<Record<'sqlite' | 'postgres', ReadonlySet<string>>> = {
  sqlite: new Set([...COMMON, ...SQLITE_ONLY]),
  postgres: new Set([...COMMON, ...POSTGRES_ONLY]),
};
