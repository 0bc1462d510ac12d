import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';

export default class Serve extends BaseCommand {
  static override summary = 'Serve the compiler and rule tools over HTTP.';
  static override description = `Starts the HTTP API (see /api/openapi.json) on 127.0.0.1 by default.
Settings come from flags or the environment: FLC_HOST, FLC_PORT (or PORT).
SIGINT/SIGTERM stop accepting connections and let requests in flight finish (10 s at most).`;

  static override examples = ['<%= config.bin %> serve', '<%= config.bin %> serve --host 0.0.0.0 --port 8080'];

  static override flags = {
    host: Flags.string({ default: '127.0.0.1', env: 'FLC_HOST', description: 'address to bind' }),
    port: Flags.integer({ default: 8787, min: 0, max: 65535, env: 'FLC_PORT', description: 'port (0 picks a free one)' }),
    db: Flags.string({ env: 'FLC_DB', description: 'SQLite store file, created and migrated on first start (default ~/.local/share/flc/flc.db)' }),
    'allow-private-sources': Flags.boolean({
      env: 'FLC_ALLOW_PRIVATE_SOURCES',
      description: 'let compiles read loopback, private and link-local addresses (trusted networks only)',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const { startServer } = await import('../server/start.js');
    const port = process.env.FLC_PORT === undefined && process.env.PORT ? Number(process.env.PORT) : flags.port;
    const { defaultDbFile } = await import('../server/store/location.js');
    const server = await startServer({ host: flags.host, port, dbFile: flags.db ?? defaultDbFile(process.env), version: this.config.version, allowPrivateSources: flags['allow-private-sources'], log: (m) => this.note(`flc: ${m}`) });
    this.note(`flc: listening on ${server.url}`);
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        this.note(`flc: ${signal}, finishing requests in flight`);
        void server.close().then(resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
  }
}
