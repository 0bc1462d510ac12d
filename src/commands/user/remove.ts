import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { InputError } from '../../core/errors/index.js';

export default class UserRemove extends BaseCommand {
  static override summary = 'Remove a local user (and their sessions) from the server store.';
  static override examples = ['<%= config.bin %> user remove old@example.org'];
  static override args = { email: Args.string({ required: true, description: 'the user to remove' }) };
  static override flags = {
    db: Flags.string({
      env: 'FLC_DATABASE_URL',
      description: 'the store `flc serve --db` uses: a SQLite file or a postgres:// URL (FLC_DB also names a file)',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(UserRemove);
    const { openExistingStore } = await import('../../cli/existing-store.js');
    const store = await openExistingStore(flags.db);
    try {
      if (!(await store.removeUser(args.email.trim().toLowerCase()))) throw new InputError([`no user ${args.email}`]);
      this.note(`flc: removed ${args.email}`);
    } finally {
      await store.close();
    }
  }
}
