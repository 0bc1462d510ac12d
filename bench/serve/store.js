// The store a serve bench runs on, with an administrator: a SQLite file in a temporary folder,
// or with `--postgres [URL]` a fresh PostgreSQL database on that server (dropped by `drop`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const PASSWORD = 'bench password';

/** The store (`db` for `--db`), with bench@example.org as admin; `name` prefixes its folder and database. */
export async function benchStore(root, args, name) {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const pgAt = args.indexOf('--postgres');
  const pgBase =
    pgAt < 0
      ? null
      : args[pgAt + 1]?.startsWith('postgres')
        ? args[pgAt + 1]
        : 'postgres://postgres@127.0.0.1:5432/postgres';
  const pgName = `${name.replaceAll('-', '_')}_${Date.now()}`;
  const onServer = async (sql) => {
    const admin = new pg.Client({ connectionString: pgBase });
    await admin.connect();
    await admin.query(sql);
    await admin.end();
  };
  let db = join(dir, 'flc.db');
  if (pgBase) {
    await onServer(`create database ${pgName}`);
    const u = new URL(pgBase);
    u.pathname = `/${pgName}`;
    db = u.toString();
  }
  const add = spawnSync(
    process.execPath,
    [join(root, 'bin/run.js'), 'user', 'add', 'bench@example.org', '--role', 'admin', '--db', db],
    { input: `${PASSWORD}\n`, encoding: 'utf8' },
  );
  if (add.status !== 0) throw new Error(`flc user add failed: ${add.stderr}`);
  return {
    db,
    engine: pgBase ? 'PostgreSQL' : 'SQLite',
    async drop() {
      rmSync(dir, { recursive: true, force: true });
      if (pgBase) await onServer(`drop database if exists ${pgName} with (force)`);
    },
  };
}
