import { writeFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { callServer, DB_HELP, URL_HELP } from '../../cli/config-bundle.js';

export default class ConfigExport extends BaseCommand {
  static override summary =
    "Export the server's access configuration as a bundle (tiers, scopes, overrides, roles, …).";
  static override description =
    'The bundle holds tiers, scopes, endpoint overrides, announcements, admin roles, user groups and API groups; ' +
    '`flc config import` reads it back, on this store or another (staging to production).';
  static override examples = [
    '<%= config.bin %> config export --format yaml -o staging.yaml --db /srv/flc/flc.db',
    'FLC_API_KEY=flc_… <%= config.bin %> config export --url https://flc.example.org -o bundle.json',
  ];
  static override flags = {
    format: Flags.string({ options: ['json', 'yaml', 'toml'], default: 'json', description: 'the bundle format' }),
    output: Flags.string({ char: 'o', description: 'write the bundle to this file (default: stdout)' }),
    db: Flags.string({ env: 'FLC_DATABASE_URL', description: DB_HELP, exclusive: ['url'] }),
    url: Flags.string({ description: URL_HELP }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ConfigExport);
    const format = flags.format as 'json' | 'yaml' | 'toml';
    let text: string;
    if (flags.url) {
      text = await (await callServer(flags.url, `/admin/system/config/export?format=${format}`)).text();
    } else {
      const { openExistingStore } = await import('../../cli/existing-store.js');
      const { exportConfig } = await import('../../server/config-bundle/service.js');
      const store = await openExistingStore(flags.db);
      try {
        text = await exportConfig(store, format);
      } finally {
        await store.close();
      }
    }
    if (flags.output) {
      await writeFile(flags.output, text);
      this.note(`flc: wrote the configuration bundle to ${flags.output}`);
    } else process.stdout.write(text);
  }
}
