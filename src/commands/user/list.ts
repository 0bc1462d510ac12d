import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import type { User } from '../../server/store/accounts.js';

export default class UserList extends BaseCommand {
  static override summary = 'List the local users of the server store.';
  static override examples = ['<%= config.bin %> user list', '<%= config.bin %> user list --json --db /srv/flc/flc.db'];
  static override enableJsonFlag = true;
  static override flags = {
    db: Flags.string({
      env: 'FLC_DATABASE_URL',
      description: 'the store `flc serve --db` uses: a SQLite file or a postgres:// URL (FLC_DB also names a file)',
    }),
  };

  async run(): Promise<{ users: (User & { adminRoles: string[] })[] }> {
    const { flags } = await this.parse(UserList);
    const { openExistingStore } = await import('../../cli/existing-store.js');
    const store = await openExistingStore(flags.db);
    try {
      const now = new Date().toISOString();
      const users = await Promise.all(
        (await store.listUsers()).map(async (u) => ({ ...u, adminRoles: await store.rolesOf(u.id, now) })),
      );
      if (!this.jsonEnabled()) {
        for (const u of users) {
          const extra = [...u.adminRoles, ...(u.banned ? ['banned'] : []), ...(u.apiDisabled ? ['api-disabled'] : [])];
          this.out([u.email, u.role, u.tier, ...extra].join('\t'));
        }
      }
      return { users };
    } finally {
      await store.close();
    }
  }
}
