import { afterAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startServer, type TestServer } from '../support/http-server.js';

const BIN = resolve(import.meta.dirname, '../../bin/run.js');
const dir = mkdtempSync(join(tmpdir(), 'flc-serve-busy-'));
let lists: TestServer | undefined;
afterAll(async () => {
  await lists?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('flc serve under a busy compile', () => {
  test('SIGTERM stops it within a few seconds, the busy compile answered as cancelled', async () => {
    lists = await startServer((_req, res) => res.end(`${'a'.repeat(400)}\n`));
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--port', '0', '--db', join(dir, 'flc.db'), '--allow-private-sources', '--compile-timeout', '300'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    const url = await new Promise<string>((resolveUrl, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (m) resolveUrl(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const signUp = await fetch(`${url}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'busy@example.org', password: 'a long password' }),
    });
    const { token } = await signUp.json();
    // An exclusion that backtracks for ever over the served line: the compile never ends by itself.
    const busy = fetch(`${url}/api/compile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        configuration: { name: 'busy', sources: [{ source: `${lists.url}/a.txt` }], exclusions: ['/(a+)+b/'] },
      }),
    }).then(
      async (res) => ({ status: res.status, body: await res.text() }),
      (e: Error) => ({ status: 0, body: e.message }),
    );
    while (lists.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    // The server still answers while the compile runs.
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const signalled = performance.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Generous: a shutdown normally takes well under a second; the grace period for requests is 10 s.
    expect(performance.now() - signalled).toBeLessThan(5_000);
    const answer = await busy;
    expect(answer.status).toBe(503);
    expect(answer.body).toContain('cancelled');
  }, 30_000);
});
