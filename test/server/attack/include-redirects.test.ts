import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { BIN, type ServeProcess, startServe } from '../../support/serve-process.js';
import { call, PASSWORD } from '../../support/serve-accounts.js';

/**
 * An `!#include` is held to its including list's origin on every redirect hop, in the CLI and in
 * a real `flc serve` (private addresses allowed, so that the origin rule and not the address
 * policy is what refuses): a same-origin include that redirects to another host fails naming
 * the hop, and the other host is never contacted. A configured source has no origin rule: its
 * redirects may leave.
 */

const dir = mkdtempSync(join(tmpdir(), 'flc-include-redirect-'));
let home: Server;
let other: Server;
let homeUrl: string;
let otherUrl: string;
let otherConnections = 0;
const lists = new Map<string, string>();
const redirects = new Map<string, () => string>();

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

let server: ServeProcess;
let token: string;
beforeAll(async () => {
  other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('||other.example^'));
  other.on('connection', () => {
    otherConnections += 1;
  });
  otherUrl = await listen(other);
  home = createServer((req, res) => {
    const to = redirects.get(req.url ?? '');
    if (to) return res.writeHead(302, { location: to() }).end();
    const body = lists.get(req.url ?? '');
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
  homeUrl = await listen(home);
  lists.set('/off.txt', '||home.example^\n!#include moved.txt\n');
  redirects.set('/moved.txt', () => `${otherUrl}/w.txt`);
  lists.set('/off-later.txt', '||home.example^\n!#include hop-1.txt\n');
  redirects.set('/hop-1.txt', () => '/hop-2.txt');
  redirects.set('/hop-2.txt', () => `${otherUrl}/x.txt`);
  lists.set('/on.txt', '||home.example^\n!#include same.txt\n');
  redirects.set('/same.txt', () => `${homeUrl}/sub/same.txt`);
  lists.set('/sub/same.txt', '||same-origin.example^\n');
  redirects.set('/top.txt', () => `${otherUrl}/top.txt`);
  server = await startServe(['--db', join(dir, 'flc.db'), '--allow-private-sources']);
  const up = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, {
    email: 'free@example.org',
    password: PASSWORD,
  });
  token = up.json.token as string;
}, 60_000);
afterAll(async () => {
  await server.stop();
  home.closeAllConnections();
  other.closeAllConnections();
  await Promise.all([new Promise((r) => home.close(r)), new Promise((r) => other.close(r))]);
  rmSync(dir, { recursive: true, force: true });
});

const cli = (url: string) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, 'compile', '-i', url], (err, stdout, stderr) =>
      resolve({ status: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
const compile = (url: string) =>
  call(server.url, 'POST', '/api/compile', token, { configuration: { name: 'x', sources: [{ source: url }] } });

describe('redirects of an !#include', () => {
  test.each(['/off.txt', '/off-later.txt'])('%s: off the origin at any hop: refused, nothing fetched', async (path) => {
    const before = otherConnections;
    const run = await cli(`${homeUrl}${path}`);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/redirected to http:\/\/127\.0\.0\.1:\d+\/[wx]\.txt, which is not on the origin/);
    const res = await compile(`${homeUrl}${path}`);
    expect(res.status, res.text).toBe(422);
    expect(res.text).toMatch(/which is not on the origin/);
    expect(res.text).not.toContain('other.example');
    expect(otherConnections).toBe(before);
  });

  test('the compile cache reads an include again as it was read: held to its origin', async () => {
    lists.set('/cached.txt', '||home.example^\n!#include flip.txt\n');
    lists.set('/flip.txt', '||flip.example^\n');
    const first = await compile(`${homeUrl}/cached.txt`);
    expect(first.status, first.text).toBe(200);
    expect(first.json.rules).toContain('||flip.example^');
    // The include now redirects away: checking the cached answer must not follow it.
    redirects.set('/flip.txt', () => `${otherUrl}/flip.txt`);
    const before = otherConnections;
    const second = await compile(`${homeUrl}/cached.txt`);
    expect(second.status, second.text).toBe(422);
    expect(second.text).toMatch(/which is not on the origin/);
    expect(otherConnections).toBe(before);
  });

  test('a redirect that stays on the origin is followed', async () => {
    const run = await cli(`${homeUrl}/on.txt`);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('||same-origin.example^');
    const res = await compile(`${homeUrl}/on.txt`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.rules).toContain('||same-origin.example^');
  });

  test('a configured source (no origin rule) may still be redirected elsewhere', async () => {
    const run = await cli(`${homeUrl}/top.txt`);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('||other.example^');
    const res = await compile(`${homeUrl}/top.txt`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.rules).toContain('||other.example^');
  });
});
