import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

export const BIN = resolve(import.meta.dirname, '../../bin/run.js');

/** A running `flc serve` child process on a free port. */
export interface ServeProcess {
  url: string;
  /** What it has written to stderr so far (its log). */
  log(): string;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<void>;
  child: ChildProcess;
}

/** Starts `flc serve --port 0 ARGS` and waits for its "listening on" line. */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let err = '';
  const url = await new Promise<string>((done, fail) => {
    child.stderr?.on('data', (d) => {
      err += d;
      const m = /listening on (\S+)/.exec(err);
      if (m) done(m[1]);
    });
    child.once('exit', (code) => fail(new Error(`flc serve exited ${code}: ${err}`)));
  });
  return {
    url,
    child,
    log: () => err,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** `flc user add EMAIL --role ROLE --db DB`, the password on standard input. */
export function addUser(db: string, email: string, role: 'admin' | 'user', password: string) {
  return spawnSync(process.execPath, [BIN, 'user', 'add', email, '--role', role, '--db', db], {
    input: `${password}\n`,
    encoding: 'utf8',
  });
}
