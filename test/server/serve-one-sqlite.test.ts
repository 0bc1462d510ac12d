import { afterAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, type ServeProcess } from '../support/serve-process.js';

const dir = mkdtempSync(join(tmpdir(), 'flc-one-sqlite-'));
const db = join(dir, 'flc.db');
const servers: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

describe('one flc serve per SQLite file', () => {
  test('a second server refuses to start and points to PostgreSQL; a killed one leaves no lock', async () => {
    const first = await startServe(['--db', db]);
    servers.push(first);
    const refused = await startServe(['--db', db]).then(
      (s) => {
        servers.push(s);
        return 'started';
      },
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/Another flc serve is using .*flc\.db/);
    expect(refused).toMatch(/PostgreSQL/);
    // The first goes on serving.
    expect((await fetch(`${first.url}/api/health`)).status).toBe(200);

    // A crash releases the lock with the process: the next server starts on the same file.
    const killed = new Promise((done) => first.child.once('exit', done));
    first.child.kill('SIGKILL');
    await killed;
    servers.splice(servers.indexOf(first), 1);
    const next = await startServe(['--db', db]);
    servers.push(next);
    expect((await fetch(`${next.url}/api/health`)).status).toBe(200);
  });

  test('a symbolic link to the same file names the same lock: the second server still refuses', async () => {
    const file = join(dir, 'linked', 'flc.db');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const first = await startServe(['--db', file]);
    servers.push(first);
    // SQLite follows the link to the first server's file; so must the lock.
    symlinkSync(file, join(elsewhere, 'flc.db'));
    const refused = await startServe(['--db', join(elsewhere, 'flc.db')]).then(
      (s) => {
        servers.push(s);
        return 'started';
      },
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/Another flc serve is using .*elsewhere\/flc\.db/);
    expect((await fetch(`${first.url}/api/health`)).status).toBe(200);
  });
});
