import PgBoss from 'pg-boss';
import pg from 'pg';
import type { SqlExecutor } from '../store/jobs.js';

/** pg-boss's queue for flc's jobs (each pg-boss job carries one `jobs` row's id). */
const QUEUE = 'flc_jobs';

/** Runs the job; throws when it should be delivered again later (running elsewhere, server stopping). */
export type DispatchHandler = (id: string) => Promise<void>;

/**
 * Delivery of jobs on PostgreSQL through pg-boss: a job's pg-boss message is written in the
 * transaction that writes its row, any `flc serve` on the database fetches it, and one that is
 * not finished (its process died, or it ran elsewhere at the time) is delivered again after
 * pg-boss's expiry and retry delay. The row stays the record: the lease on it decides who runs the
 * job, and its result is written with its state. pg-boss's tables live in their own schema,
 * `pgboss` beside a store in `public`, `<schema>_pgboss` beside a store in another schema.
 */
export class PgBossDispatch {
  private boss: PgBoss | undefined;
  private readonly workers: string[] = [];
  private stopping = false;

  constructor(
    private readonly url: string,
    private readonly options: { workers: number; leaseMs: number },
    private readonly log: (m: string) => void,
  ) {}

  private get timing() {
    const lease = Math.max(1, Math.round(this.options.leaseMs / 1000));
    return { expireInSeconds: 2 * lease, retryDelay: lease, retryLimit: 1_000_000 };
  }

  /** Records the job's pg-boss message in the transaction that writes its row. */
  enqueued = async (id: string, sql: SqlExecutor): Promise<void> => {
    const boss = await this.started();
    await boss.send(QUEUE, { id }, { id, ...this.timing, db: sql as PgBoss.Db });
  };

  private starting: Promise<PgBoss> | undefined;

  private started(): Promise<PgBoss> {
    this.starting ??= (async () => {
      const boss = new PgBoss({
        connectionString: this.url,
        schema: await bossSchema(this.url),
        max: 2 + this.options.workers,
        // Expiry of a job whose process died is found by this maintenance (one server runs it at a time).
        maintenanceIntervalSeconds: Math.max(1, Math.round(this.options.leaseMs / 1000)),
        schedule: false,
      });
      boss.on('error', (e: Error) => this.log(`queue: pg-boss: ${e.message}`));
      await boss.start();
      await boss.createQueue(QUEUE, { name: QUEUE, ...this.timing });
      this.boss = boss;
      return boss;
    })();
    return this.starting;
  }

  /** Starts `workers` fetchers, each running one job at a time. */
  async start(handler: DispatchHandler): Promise<void> {
    const boss = await this.started();
    // A stop that came while pg-boss was starting (a slow database, a quick SIGTERM) wins: a
    // fetcher started after it would poll forever and keep the process from exiting.
    for (let i = 0; i < this.options.workers && !this.stopping; i += 1) {
      let self = '';
      self = await boss.work<{ id: string }>(QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
        try {
          await handler(job.data.id);
        } finally {
          // Fetch the next job at once rather than after the polling interval.
          boss.notifyWorker(self);
        }
      });
      this.workers.push(self);
    }
  }

  /** A job was written here: this process's idle fetchers look now. */
  wake(): void {
    for (const id of this.workers) this.boss?.notifyWorker(id);
  }

  /** Stops fetching; jobs in flight are left to the caller. */
  async stopFetching(): Promise<void> {
    this.stopping = true;
    await this.settled();
    await this.boss?.offWork(QUEUE).catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.settled();
    await this.boss?.stop({ graceful: true, wait: true, timeout: 3_000, close: true }).catch(() => undefined);
  }

  /** Waits for a pg-boss start in progress, so that stopping reaches what it starts. */
  private async settled(): Promise<void> {
    await this.starting?.catch(() => undefined);
  }
}

/** pg-boss's schema for the store at `url`: named after the schema the store's tables are in. */
async function bossSchema(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
    const schema = rows[0]?.schema ?? 'public';
    return schema === 'public' ? 'pgboss' : `${schema}_pgboss`;
  } finally {
    await client.end();
  }
}
