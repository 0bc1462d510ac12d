import { expect, test } from 'vitest';
import { openStore } from '../../../src/server/store/open.js';
import { runWorkflow } from '../../../src/server/queue/workflow.js';
import { tierFeatures } from '../../../src/server/compile/service.js';
import type { AppDeps } from '../../../src/server/deps.js';

test("a workflow step that fails inside the server shows the client no internal error's message", async () => {
  const store = await openStore(':memory:');
  const configuration = { name: 'W', sources: [{ source: 'https://lists.example/a.txt' }] };
  const at = '2026-01-01T00:00:00.000Z';
  await store.jobs.enqueue({ id: 'w1', ownerId: 'u1', kind: 'workflow', payload: { configuration }, createdAt: at });
  const job = await store.jobs.job('w1');
  const deps = {
    store,
    version: '1',
    now: () => Date.parse(at),
    makeReader: () => ({
      resolve: (ref: string) => ref,
      read: async () => {
        throw new Error('connect ECONNREFUSED 10.0.0.5:5432 (/var/lib/flc/secret.db)');
      },
      close: async () => {},
    }),
  } as unknown as AppDeps;
  const events: [string, unknown][] = [];
  const features = tierFeatures({ name: 'free', features: {} });
  const run = runWorkflow(deps, job!, new AbortController().signal, (e, d) => events.push([e, d]), features);
  await expect(run).rejects.toThrow();
  const failed = { index: 0, state: 'failed', error: 'Unexpected server error' };
  expect(events).toContainEqual(['workflow:step', expect.objectContaining(failed)]);
  expect((await store.jobs.steps('w1'))[0]).toMatchObject(failed);
  await store.close();
});
