import { describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';

const BIN = resolve(import.meta.dirname, '../../bin/run.js');

describe('flc serve', () => {
  test('listens on 127.0.0.1, answers, and shuts down cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flc-serve-'));
    const db = join(dir, 'flc.db');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const url = await new Promise<string>((resolveUrl, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (m) resolveUrl(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const health = await fetch(`${url}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const deployments = await (await fetch(`${url}/api/deployments`)).json();
    expect(deployments.deployments).toHaveLength(1);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM, finishing requests in flight');
    expect(existsSync(db)).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);
});
