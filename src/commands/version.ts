import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';

export default class Version extends BaseCommand {
  static override summary = 'Print the version (as --version does).';
  static override description =
    'The bare version, as hostlist-compiler --version prints it, for scripts; --verbose adds the platform and Node.js.';
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --verbose'];
  static override flags = {
    verbose: Flags.boolean({ char: 'v', description: 'name, version, platform and Node.js version' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Version);
    // bin/run.js prints the bare version for `flc --version` and `flc version` without loading oclif.
    this.out(flags.verbose ? this.config.userAgent : this.config.version);
  }
}
