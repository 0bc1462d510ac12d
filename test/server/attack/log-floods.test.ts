import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { openStore } from '../../../src/server/store/open.js';
import { LOG_BOUNDS } from '../../../src/server/store/log-bounds.js';
import type { AuditEntry } from '../../../src/server/store/admin.js';
import { type ServeProcess, startServe } from '../../support/serve-process.js';
import { call, rootAndEditor } from '../../support/serve-accounts.js';

/**
 * Floods of what anyone can make the server log push out nothing else: refused admin calls are
 * bounded apart from successful actions in the audit log, and browser error reports are bounded
 * per source address.
 */

const dir = mkdtempSync(join(tmpdir(), 'flc-log-floods-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = (status: AuditEntry['status'], i: number): AuditEntry => ({
  actor_id: null,
  actor_email: null,
  action: status === 'success' ? 'tier.update' : 'route.denied',
  resource_type: 'tier',
  resource_id: String(i),
  old_values: null,
  new_values: null,
  ip_address: '203.0.113.9',
  user_agent: 'flood',
  status,
  metadata: null,
  created_at: new Date(Date.now() + i).toISOString(),
});

describe('the audit log', () => {
  test('a flood of refusals prunes refusals only: every successful action stays', async () => {
    const bounds = LOG_BOUNDS as unknown as Record<'audit' | 'auditRefusals', { maxRows: number }>;
    const saved = { audit: bounds.audit.maxRows, refusals: bounds.auditRefusals?.maxRows };
    // Small caps, so that a few hundred rows show the pruning: 50 actions, 5 refusals.
    bounds.audit.maxRows = 50;
    if (bounds.auditRefusals) bounds.auditRefusals.maxRows = 5;
    const store = await openStore(join(dir, 'audit.db'));
    try {
      for (let i = 0; i < 10; i += 1) await store.appendAudit(entry('success', i));
      for (let i = 10; i < 320; i += 1) await store.appendAudit(entry(i % 2 ? 'denied' : 'failure', i));
      const kept = await store.audit({ status: 'success' }, 100, 0);
      expect(kept.total).toBe(10);
      const refused = (await store.audit({ status: 'denied' }, 500, 0)).total;
      // Pruned every 100 writes of the class to the newest 5: never more than 5 + 100.
      expect(refused).toBeLessThanOrEqual(105);
    } finally {
      bounds.audit.maxRows = saved.audit;
      if (bounds.auditRefusals && saved.refusals !== undefined) bounds.auditRefusals.maxRows = saved.refusals;
      await store.close();
    }
  });
});

describe('browser error reports on a real flc serve', () => {
  let server: ServeProcess;
  const db = join(dir, 'errors.db');
  beforeAll(async () => {
    server = await startServe(['--db', db, '--trust-proxy', '127.0.0.1']);
  }, 60_000);
  afterAll(() => server.stop());

  test('one address stores at most its share a minute; another address still gets in', async () => {
    const { root } = await rootAndEditor(server, db);
    // Signed in, so that the request limits (an anonymous caller's are low) let the flood through.
    const report = (address: string, i: number) =>
      call(
        server.url,
        'POST',
        '/api/log/frontend-error',
        root,
        { source: 'browser', severity: 'low', message: `flood ${address} ${i}` },
        { 'x-forwarded-for': address },
      );
    for (let i = 0; i < 25; i += 1) expect((await report('203.0.113.7', i)).status).toBe(204);
    expect((await report('198.51.100.4', 0)).status).toBe(204);
    // Reports are stored after the answer.
    await new Promise((r) => setTimeout(r, 500));
    const stored = await call(server.url, 'GET', '/api/admin/errors?limit=100', root);
    expect(stored.status, stored.text).toBe(200);
    const messages = (stored.json.events as { message: string }[]).map((e) => e.message);
    expect(messages.filter((m) => m.startsWith('flood 203.0.113.7')).length).toBe(LOG_BOUNDS.errorEventsPerAddress);
    expect(messages).toContain('flood 198.51.100.4 0');
  }, 60_000);
});
