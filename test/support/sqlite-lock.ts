import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/** Another process takes SQLite's write lock on `file` (BEGIN IMMEDIATE and a write) and keeps it for `ms`. */
export async function holdWriteLock(file: string, ms: number) {
  const libsql = createRequire(import.meta.url).resolve('libsql');
  const script = `
    const Database = require(${JSON.stringify(libsql)});
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    db.prepare("INSERT INTO smoke (written_at) VALUES ('held')").run();
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('ROLLBACK'); db.close(); process.exit(0); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((done) => child.stdout.on('data', (d) => String(d).includes('locked') && done()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return { exited, running: () => child.exitCode === null };
}
