import { readFile } from 'node:fs/promises';
import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { callServer, DB_HELP, URL_HELP } from '../../cli/config-bundle.js';
import { formatOfFile } from '../../server/config-bundle/format.js';
import type { ImportReport } from '../../server/config-bundle/service.js';

/** The service's report; over `--url` an applied import comes without its diff, as the route answers. */
type Report =
  | Extract<ImportReport, { dryRun: true }>
  | (Omit<Extract<ImportReport, { dryRun: false }>, 'diff'> & { diff?: ImportReport['diff'] });

export default class ConfigImport extends BaseCommand {
  static override summary = 'Import a configuration bundle: show what would change, or apply it with --apply.';
  static override description =
    'A dry run by default: prints per section what is added, removed and changed. With --apply the current ' +
    'configuration is snapshotted first, then the bundle is written in one transaction (rows are created or ' +
    'updated by their natural key; rows the bundle lacks are kept). A malformed bundle lists every problem and ' +
    'exits 2 without writing anything.';
  static override examples = [
    '<%= config.bin %> config import staging.yaml --db /srv/flc/flc.db',
    '<%= config.bin %> config import staging.yaml --apply --db /srv/flc/flc.db',
    'FLC_API_KEY=flc_… <%= config.bin %> config import bundle.json --apply --url https://flc.example.org --json',
  ];
  static override enableJsonFlag = true;
  static override args = { file: Args.string({ required: true, description: 'the bundle file' }) };
  static override flags = {
    format: Flags.string({
      options: ['json', 'yaml', 'toml'],
      description: 'the bundle format (default: from the name)',
    }),
    apply: Flags.boolean({ default: false, description: 'write the bundle (after a snapshot); otherwise a dry run' }),
    db: Flags.string({ env: 'FLC_DATABASE_URL', description: DB_HELP, exclusive: ['url'] }),
    url: Flags.string({ description: URL_HELP }),
  };

  async run(): Promise<Report> {
    const { args, flags } = await this.parse(ConfigImport);
    const format = (flags.format ?? formatOfFile(args.file)) as 'json' | 'yaml' | 'toml';
    const text = await readFile(args.file, 'utf8');
    let report: Report;
    if (flags.url) {
      const path = `/admin/system/config/import?format=${format}&dryRun=${!flags.apply}`;
      const body = (await (await callServer(flags.url, path, { method: 'POST', body: text })).json()) as Report;
      const { success: _ok, ...rest } = body as Report & { success?: boolean };
      report = rest;
    } else {
      const { openStore } = await import('../../server/store/open.js');
      const { openExistingStore } = await import('../../cli/existing-store.js');
      const { importConfig } = await import('../../server/config-bundle/service.js');
      // A dry run writes nothing, not even a new store; an applied bundle may seed a new one.
      const store = await (flags.apply ? openStore(flags.db) : openExistingStore(flags.db));
      try {
        report = await importConfig(store, text, format, {
          apply: flags.apply,
          by: 'flc config import',
          at: new Date().toISOString(),
          // Whoever can open the store file or database has every right over it.
          writer: 'all',
        });
      } finally {
        await store.close();
      }
    }
    if (!this.jsonEnabled()) this.print(report);
    return report;
  }

  private print(report: Report): void {
    for (const [section, d] of Object.entries(report.diff ?? {})) {
      const keyOf = (row: Record<string, unknown>) =>
        JSON.stringify(
          row.role_name ?? row.tier_name ?? row.scope_name ?? row.group_name ?? row.path_pattern ?? row.id,
        );
      for (const r of d.added) this.out(`+ ${section} ${keyOf(r)}`);
      for (const r of d.removed) this.out(`- ${section} ${keyOf(r)}${report.dryRun ? '' : ' (kept)'}`);
      for (const c of d.changed) this.out(`~ ${section} ${JSON.stringify(c.key)}`);
    }
    if (report.dryRun) this.note('flc: dry run; nothing written (--apply writes the bundle)');
    else {
      const applied = Object.entries(report.applied)
        .map(([s, a]) => `${s} ${a.created}+ ${a.updated}~`)
        .join(', ');
      this.note(`flc: applied after snapshot ${report.snapshotId}: ${applied}`);
    }
  }
}
