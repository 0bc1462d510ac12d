import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { DEFAULT_COMPILE_CACHE_BYTES } from '../server/compile-cache.js';
import { DEFAULT_HTTP_CACHE_BYTES } from '../node/http-cache.js';

export default class Serve extends BaseCommand {
  static override summary = 'Serve the compiler and rule tools over HTTP.';
  // One paragraph per line: oclif wraps them to the terminal's width.
  static override description = [
    'Starts the HTTP API (see /api/openapi.json) on 127.0.0.1 by default. Settings come from flags or the ' +
      'environment: FLC_HOST, FLC_PORT (or PORT), FLC_DATABASE_URL, FLC_TRUST_PROXY. The store is a SQLite ' +
      'file by default; a postgres:// URL lets several servers share one database (see docs/configuration.md).',
    'SIGINT/SIGTERM stop accepting connections, cancel compiles in flight and let other requests finish ' +
      '(10 s at most).',
  ].join('\n\n');

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --host 0.0.0.0 --port 8080',
    '<%= config.bin %> serve --db postgres://flc@db.internal/flc --trust-proxy 10.0.0.0/8',
  ];

  static override flags = {
    console: Flags.boolean({
      default: true,
      allowNo: true,
      env: 'FLC_CONSOLE',
      description: 'serve the web console at /console (sign in at /login); --no-console leaves it out',
    }),
    host: Flags.string({ default: '127.0.0.1', env: 'FLC_HOST', description: 'address to bind' }),
    port: Flags.integer({
      default: 8787,
      min: 0,
      max: 65535,
      env: 'FLC_PORT',
      description: 'port (0 picks a free one)',
    }),
    db: Flags.string({
      env: 'FLC_DATABASE_URL',
      description:
        'the store: a SQLite file (default ~/.local/share/flc/flc.db; FLC_DB also names it) or a ' +
        'postgres:// URL; created and migrated on start',
    }),
    'query-db': Flags.string({
      env: 'FLC_QUERY_DATABASE_URL',
      description:
        'PostgreSQL: a postgres:// URL of a low-privilege role for the admin query route (default: a role ' +
        'the server makes when its own connection may create roles; see docs/security.md)',
    }),
    'trust-proxy': Flags.string({
      env: 'FLC_TRUST_PROXY',
      description:
        'reverse proxies (addresses or CIDRs, comma-separated) whose X-Forwarded-For names the client; ' +
        'default none: the socket address is the client',
    }),
    'limit-ipv6-prefix': Flags.integer({
      env: 'FLC_LIMIT_IPV6_PREFIX',
      min: 1,
      max: 128,
      default: 64,
      description: 'IPv6 addresses in one network of this many bits count as one client for the rate limits',
    }),
    'allow-private-sources': Flags.boolean({
      env: 'FLC_ALLOW_PRIVATE_SOURCES',
      description: 'let compiles read loopback, private and link-local addresses (trusted networks only)',
    }),
    'compile-workers': Flags.integer({
      env: 'FLC_COMPILE_WORKERS',
      min: 1,
      description: 'worker threads for compiles, rule matching and AST work (default: the cores less one)',
    }),
    'max-memory': Flags.integer({
      env: 'FLC_MAX_MEMORY',
      min: 16,
      default: 512,
      description: 'MB of heap each worker thread may use; a compile needing more fails (422), the server goes on',
    }),
    'compile-timeout': Flags.integer({
      env: 'FLC_COMPILE_TIMEOUT',
      min: 1,
      default: 60,
      description: 'seconds a compile may take, downloads included, before it is stopped',
    }),
    'ast-timeout': Flags.integer({
      env: 'FLC_AST_TIMEOUT',
      min: 1,
      default: 10,
      description: 'seconds an AST walk or parse, or a list validation, may run in its worker before it is stopped',
    }),
    'ast-answer-limit': Flags.integer({
      env: 'FLC_AST_ANSWER_LIMIT',
      min: 1,
      default: 32,
      description: 'MiB an AST walk or parse, or a list validation, may answer; a larger answer is refused (422)',
    }),
    'queue-workers': Flags.integer({
      env: 'FLC_QUEUE_WORKERS',
      min: 1,
      default: 2,
      description: 'queued jobs (async compiles, workflows) this process runs at once',
    }),
    'queue-retention': Flags.integer({
      env: 'FLC_QUEUE_RETENTION',
      min: 1,
      default: 86_400,
      description: 'seconds a finished job and its result are kept before they are removed',
    }),
    'queue-lease': Flags.integer({
      env: 'FLC_QUEUE_LEASE',
      min: 1,
      default: 10,
      description: 'seconds after which a running job whose process died is taken again',
    }),
    'container-memory': Flags.integer({
      env: 'FLC_CONTAINER_MEMORY',
      min: 16,
      default: 256,
      description: 'MB of heap a container compile (POST /api/compile/container) may use',
    }),
    'container-timeout': Flags.integer({
      env: 'FLC_CONTAINER_TIMEOUT',
      min: 1,
      default: 60,
      description: 'seconds a container compile may take, downloads included, before its process is killed',
    }),
    containers: Flags.integer({
      env: 'FLC_CONTAINERS',
      min: 1,
      default: 2,
      description: 'container compiles at once; more are answered 503',
    }),
    'max-unsent-bytes': Flags.integer({
      env: 'FLC_MAX_UNSENT_BYTES',
      min: 1024,
      default: 64 * 1024 * 1024,
      description:
        'bytes of answers a connection (HTTP or WebSocket) may leave unsent; one above it for 10 s, ' +
        'or one of which nothing was sent for 10 s (a client that stopped reading), is cut; all ' +
        'connections together may hold four times it, past which the stalled ones are cut',
    }),
    'compile-cache-max-bytes': Flags.integer({
      env: 'FLC_COMPILE_CACHE_MAX_BYTES',
      min: 0,
      default: DEFAULT_COMPILE_CACHE_BYTES,
      description: 'bytes of compile results kept for repeated compiles (least recently used go first; 0 keeps none)',
    }),
    'http-cache-max-bytes': Flags.integer({
      env: 'FLC_HTTP_CACHE_MAX_BYTES',
      min: 0,
      default: DEFAULT_HTTP_CACHE_BYTES,
      description:
        'bytes of downloaded lists kept for conditional requests (least recently used go first; 0 keeps none)',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const { startServer } = await import('../server/start.js');
    const port = process.env.FLC_PORT === undefined && process.env.PORT ? Number(process.env.PORT) : flags.port;
    const { storeLocation } = await import('../server/store/location.js');
    const server = await startServer({
      host: flags.host,
      port,
      store: storeLocation(flags.db, process.env),
      queryDb: flags['query-db'],
      trustProxy: flags['trust-proxy'],
      ipv6LimitPrefix: flags['limit-ipv6-prefix'],
      version: this.config.version,
      allowPrivateSources: flags['allow-private-sources'],
      pool: {
        size: flags['compile-workers'],
        maxMemoryMb: flags['max-memory'],
        deadlineMs: flags['compile-timeout'] * 1000,
        listDeadlineMs: flags['ast-timeout'] * 1000,
        maxAnswerBytes: flags['ast-answer-limit'] * 1024 * 1024,
      },
      queue: {
        workers: flags['queue-workers'],
        retentionMs: flags['queue-retention'] * 1000,
        leaseMs: flags['queue-lease'] * 1000,
      },
      container: {
        memoryMb: flags['container-memory'],
        timeoutMs: flags['container-timeout'] * 1000,
        maxConcurrent: flags.containers,
      },
      compileCacheBytes: flags['compile-cache-max-bytes'],
      httpCacheBytes: flags['http-cache-max-bytes'],
      maxUnsentBytes: flags['max-unsent-bytes'],
      console: flags.console ? (await import('../console/index.js')).mountConsole : undefined,
      log: (m) => this.note(`flc: ${m}`),
    });
    // The handlers are in place before the line that says the server is up: a supervisor that
    // stops it on seeing that line must not meet the default action, which kills at once.
    const stopped = new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        this.note(`flc: ${signal}, finishing requests in flight`);
        void server.close().then(resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    this.note(`flc: listening on ${server.url}`);
    await stopped;
    // Everything flc opened is closed now; a timer or socket a library left open must not keep a
    // stopped server's process alive (a supervisor would wait for it, then kill it).
    setTimeout(() => process.exit(), 2_000).unref();
  }
}
