import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { BIN, type ServeProcess, startServe } from '../../support/serve-process.js';
import { call, PASSWORD } from '../../support/serve-accounts.js';

/**
 * Issue 30, point 4, in the CLI and in a real `flc serve` (private addresses allowed, so that the
 * origin rule and not the address policy is what refuses): a remote list whose `!#include` is
 * spelled to leave its origin, or to read a local file, fails naming the include, and the other
 * host is never contacted.
 */

const dir = mkdtempSync(join(tmpdir(), 'flc-include-attack-'));
const SECRET = join(dir, 'secret.env');
const MARKER = 'FLC_INCLUDE_MARKER_5d2a';
writeFileSync(SECRET, `||${MARKER}.example^\n`);

let home: Server;
let other: Server;
let homeUrl: string;
let otherHost: string;
let otherConnections = 0;
const lists = new Map<string, string>();

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

/** The spellings of the attack, each naming the other host (or the local file). */
const FORMS = () => [
  `file:${SECRET}`,
  `file://${SECRET}`,
  `http:\\\\${otherHost}\\x.txt`,
  `/\\${otherHost}/y.txt`,
  `https:/${otherHost}/x.txt`,
  `https:${otherHost}/x.txt`,
  `//${otherHost}/z.txt`,
  `http://${otherHost}/w.txt`,
];

let server: ServeProcess;
let token: string;
beforeAll(async () => {
  other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('||other.example^'));
  other.on('connection', () => {
    otherConnections += 1;
  });
  otherHost = await listen(other);
  home = createServer((req, res) => {
    const body = lists.get(req.url ?? '');
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
  homeUrl = `http://${await listen(home)}`;
  for (const [i, form] of FORMS().entries()) lists.set(`/list-${i}.txt`, `||home.example^\n!#include ${form}\n`);
  lists.set('/ok.txt', '||home.example^\n!#include sub/same.txt\n');
  lists.set('/sub/same.txt', '||same-origin.example^\n');
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

/** `flc compile -i URL`, asynchronously: the lists are served by this process. */
const cli = (url: string) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, 'compile', '-i', url], (err, stdout, stderr) =>
      resolve({ status: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });

const NAMES = [
  'file:/path',
  'file:///path',
  'http:\\\\host\\x',
  '/\\host/y',
  'https:/host/x',
  'https:host/x',
  '//host/z',
  'http://host/w',
];

describe('an !#include that leaves its origin', () => {
  test.each(NAMES.map((f, i) => [i, f]))('CLI, form %i (%s): refused, naming it; nothing fetched', async (i) => {
    const before = otherConnections;
    const run = await cli(`${homeUrl}/list-${i}.txt`);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/!#include .* is rejected: it is not on the same origin/);
    expect(run.stdout + run.stderr).not.toContain(MARKER);
    expect(otherConnections).toBe(before);
  });

  test.each(NAMES.map((f, i) => [i, f]))('server, form %i (%s): 422 naming it; nothing fetched', async (i) => {
    const before = otherConnections;
    const res = await call(server.url, 'POST', '/api/compile', token, {
      configuration: { name: 'x', sources: [{ source: `${homeUrl}/list-${i}.txt` }] },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.text).toMatch(/!#include .* is rejected: it is not on the same origin/);
    expect(res.text).not.toContain(MARKER);
    expect(otherConnections).toBe(before);
  });

  test('a relative include on the same origin still works, in both', async () => {
    const run = await cli(`${homeUrl}/ok.txt`);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('||same-origin.example^');
    const res = await call(server.url, 'POST', '/api/compile', token, {
      configuration: { name: 'x', sources: [{ source: `${homeUrl}/ok.txt` }] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.rules).toContain('||same-origin.example^');
  });
});
