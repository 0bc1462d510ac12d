import { afterAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { openStore } from '../../src/server/store/open.js';
import { issueApiKey } from '../../src/server/auth/identity.js';
import { exportConfig } from '../../src/server/config-bundle/service.js';
import { runCli } from '../support/cli.js';
import { BIN, startServe } from '../support/serve-process.js';

const dir = mkdtempSync(join(tmpdir(), 'flc-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function storeWithAdmin(file: string) {
  const store = await openStore(file);
  const user = await store.createUser({
    email: 'root@example.org',
    role: 'admin',
    tier: 'admin',
    password: { hash: 'h', salt: 's', iterations: 1 },
  });
  await store.assignRole(user.id, 'super-admin', 'test', new Date().toISOString());
  const key = (await issueApiKey(store, user, { name: 'ci', scopes: ['admin'] }, Date.now())).text;
  await store.close();
  return key;
}

const proLimit = async (file: string) => {
  const store = await openStore(file);
  try {
    return (await store.tiers()).find((t) => t.name === 'pro')?.rateLimit;
  } finally {
    await store.close();
  }
};

describe('flc config export / import on the store', () => {
  test('export, dry run, apply, and a malformed bundle exits 2 writing nothing', async () => {
    const db = join(dir, 'local.db');
    await storeWithAdmin(db);
    const out = join(dir, 'bundle.yaml');
    const exp = await runCli(['config', 'export', '--format', 'yaml', '-o', out, '--db', db]);
    expect(exp.code, exp.stderr).toBe(0);
    const bundle = parseYaml(readFileSync(out, 'utf8'));
    expect(bundle.tiers.map((t: { tier_name: string }) => t.tier_name)).toEqual(['admin', 'anonymous', 'free', 'pro']);
    bundle.tiers.find((t: { tier_name: string }) => t.tier_name === 'pro').rate_limit = 42;
    writeFileSync(out, stringifyYaml(bundle));

    const dry = await runCli(['config', 'import', out, '--db', db]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('~ tiers ["pro"]\n');
    expect(await proLimit(db)).toBe(300);
    const json = await runCli(['config', 'import', out, '--db', db, '--apply', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ dryRun: false, snapshotId: 1, applied: { tiers: { updated: 1 } } });
    expect(await proLimit(db)).toBe(42);

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ tiers: [{ tier_name: 'pro', rate_limit: -1 }], widgets: [] }));
    const refused = await runCli(['config', 'import', bad, '--db', db, '--apply']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/tiers\[0\]\.rate_limit/);
    expect(refused.stderr).toMatch(/unknown section: widgets/);
    expect(await proLimit(db)).toBe(42);
  });
});

describe('a --db that names no store', () => {
  // Opening a SQLite file makes it: a mistyped path would have these commands find an empty store.
  test.each([
    [['config', 'export', '--db']],
    [['config', 'import', 'BUNDLE', '--db']],
    [['user', 'list', '--db']],
    [['user', 'remove', 'root@example.org', '--db']],
  ])('%j exits 2 naming the file and makes none', async (args) => {
    const bundle = join(dir, 'empty-bundle.json');
    writeFileSync(bundle, '{}');
    const typo = join(dir, 'typo', 'flc.db');
    const run = await runCli([...args.map((a) => (a === 'BUNDLE' ? bundle : a)), typo]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`Error: no store at ${typo}: check --db`);
    expect(existsSync(typo)).toBe(false);
  });

  test('an applied import may seed a new store', async () => {
    const fresh = await openStore(':memory:');
    const exported = JSON.parse(await exportConfig(fresh, 'json'));
    await fresh.close();
    exported.tiers.find((t: { tier_name: string }) => t.tier_name === 'pro').rate_limit = 7;
    const bundle = join(dir, 'seed.json');
    writeFileSync(bundle, JSON.stringify(exported));
    const db = join(dir, 'seeded.db');
    const run = await runCli(['config', 'import', bundle, '--apply', '--db', db]);
    expect(run.code, run.stderr).toBe(0);
    expect(await proLimit(db)).toBe(7);
  });
});

describe('flc config against a running server', () => {
  test('export and import --apply with --url and FLC_API_KEY', async () => {
    const db = join(dir, 'served.db');
    const key = await storeWithAdmin(db);
    const server = await startServe(['--db', db]);
    const url = server.url;
    try {
      const env = { FLC_API_KEY: key };
      const exp = await runCli(['config', 'export', '--url', url], { env });
      expect(exp.code, exp.stderr).toBe(0);
      const bundle = JSON.parse(exp.stdout);
      bundle.roles.push({ role_name: 'release', display_name: 'Release', permissions: ['config:write'] });
      const file = join(dir, 'remote.json');
      writeFileSync(file, JSON.stringify(bundle));
      const dry = await runCli(['config', 'import', file, '--url', url, '--json'], { env });
      expect(JSON.parse(dry.stdout).diff.roles.added).toHaveLength(1);
      const applied = await runCli(['config', 'import', file, '--url', url, '--apply', '--json'], { env });
      expect(applied.code, applied.stderr).toBe(0);
      expect(JSON.parse(applied.stdout)).toMatchObject({ dryRun: false, applied: { roles: { created: 1 } } });
      const roles = await fetch(`${url}/admin/system/roles`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await roles.json()) as { roles: { role_name: string }[] }).roles.map((r) => r.role_name)).toContain(
        'release',
      );
      const noKey = await runCli(['config', 'export', '--url', url], { env: { FLC_API_KEY: undefined } });
      expect(noKey.code).toBe(2);
      const wrongKey = await runCli(['config', 'export', '--url', url], { env: { FLC_API_KEY: 'flc_wrong' } });
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stderr).toMatch(/401/);
    } finally {
      await server.stop();
    }
  });
});

describe('an import killed in the middle', () => {
  test('SIGKILL during a large --apply leaves the previous configuration whole', async () => {
    const db = join(dir, 'killed.db');
    await storeWithAdmin(db);
    const before = await openStore(db);
    const original = await before.configBundle();
    await before.close();
    const big = structuredClone(original);
    big.tiers.find((t) => t.tier_name === 'pro')!.rate_limit = 1;
    for (let i = 0; i < 60_000; i++)
      big.announcements.push({ title: `Announcement ${i}`, body: 'x'.repeat(200), severity: 'info' });
    const file = join(dir, 'big.json');
    writeFileSync(file, JSON.stringify(big));
    const child = spawn(process.execPath, [BIN, 'config', 'import', file, '--apply', '--db', db], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | number | null>((r) =>
      child.once('exit', (code, sig) => r(sig ?? code)),
    );
    // The transaction's pages spill into the write-ahead log long before it commits: kill once they do.
    const wal = `${db}-wal`;
    const deadline = Date.now() + 120_000;
    let size = 0;
    for (;;) {
      try {
        size = statSync(wal).size;
      } catch {}
      if (size > 4_000_000 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(size).toBeGreaterThan(4_000_000);
    const after = await openStore(db);
    try {
      expect(await after.configBundle()).toEqual(original);
      expect(await after.snapshots()).toEqual([]);
    } finally {
      await after.close();
    }
  }, 180_000);
});
