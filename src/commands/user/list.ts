import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import type { User } from '../../server/store/accounts.js';

export default class UserList extends BaseCommand {
  static override summary = 'List the local users of the server store.';
  static override examples = ['<%= config.bin %> user list', '<%= config.bin %> user list --json --db /srv/flc/flc.db'];
  static override enableJsonFlag = true;
  static override flags = { db: Flags.string({ env: 'FLC_DB', description: 'the store `flc serve --db` uses' }) };

  async run(): Promise<{ users: User[] }> {
    const { flags } = await this.parse(UserList);
    const { openStore } = await import('../../server/store/open.js');
    const store = openStore(flags.db);
    try {
      const users = store.listUsers();
      if (!this.jsonEnabled()) {
        for (const u of users) this.out(`${u.email}\t${u.role}\t${u.tier}${u.banned ? '\tbanned' : ''}${u.apiDisabled ? '\tapi-disabled' : ''}`);
      }
      return { users };
    } finally {
      store.close();
    }
  }
}
