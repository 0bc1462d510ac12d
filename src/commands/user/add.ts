import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { InputError } from '../../core/errors/index.js';

export default class UserAdd extends BaseCommand {
  static override summary =
    'Create a local user in the server store (how a fresh server gets its first administrator).';
  static override description =
    'The password is read from a prompt on a terminal, else from the first line of standard input. ' +
    'It is stored as a PBKDF2-SHA256 hash (600,000 iterations, per-user salt).';
  static override examples = [
    '<%= config.bin %> user add admin@example.org --role admin',
    'echo "$PASSWORD" | <%= config.bin %> user add ci@example.org --role user --tier pro --db /srv/flc/flc.db',
  ];

  static override enableJsonFlag = true;
  static override args = { email: Args.string({ required: true, description: 'the sign-in email' }) };
  static override flags = {
    role: Flags.string({ required: true, options: ['admin', 'user'], description: 'admin or user' }),
    tier: Flags.string({
      options: ['free', 'pro', 'admin'],
      description: 'rate and feature tier (default: admin for admins, free otherwise)',
    }),
    name: Flags.string({ description: 'display name' }),
    db: Flags.string({
      env: 'FLC_DATABASE_URL',
      description: 'the store `flc serve --db` uses: a SQLite file or a postgres:// URL (FLC_DB also names a file)',
    }),
  };

  async run(): Promise<{ id: string; email: string; role: string; tier: string }> {
    const { args, flags } = await this.parse(UserAdd);
    const { openStore } = await import('../../server/store/open.js');
    const { hashPassword } = await import('../../server/auth/password.js');
    const { emailProblem, nameProblem } = await import('../../server/auth/identifiers.js');
    const email = args.email.trim().toLowerCase();
    const invalid = [emailProblem(email), flags.name === undefined ? null : nameProblem(flags.name)].filter(
      (p): p is string => p !== null,
    );
    if (invalid.length > 0) throw new InputError(invalid);
    const { readPassword } = await import('../../cli/password-input.js');
    const password = await readPassword(`Password for ${email}: `);
    const { passwordProblem } = await import('../../server/auth/password-policy.js');
    const weak = passwordProblem(password);
    if (weak) throw new InputError([weak]);
    const store = await openStore(flags.db);
    try {
      if (await store.userByEmail(email)) throw new InputError([`a user ${email} already exists`]);
      const role = flags.role as 'admin' | 'user';
      const user = await store.createUser({
        email,
        name: flags.name ?? null,
        role,
        tier: flags.tier ?? (role === 'admin' ? 'admin' : 'free'),
        password: await hashPassword(password),
      });
      // An administrator made here reaches every admin route at once (CONTRACT §3).
      if (role === 'admin') await store.assignRole(user.id, 'super-admin', 'flc user add', new Date().toISOString());
      if (!this.jsonEnabled())
        this.note(
          `flc: created ${user.role} ${user.email} (tier ${user.tier}${role === 'admin' ? ', role super-admin' : ''})`,
        );
      return { id: user.id, email: user.email, role: user.role, tier: user.tier };
    } finally {
      await store.close();
    }
  }
}
