import { BaseCommand } from '../cli/base-command.js';

export default class Version extends BaseCommand {
  static override summary = 'Print the version (as --version does).';
  static override examples = ['<%= config.bin %> version'];

  async run(): Promise<void> {
    // The text of oclif's --version, which bin/run.js prints without loading oclif.
    this.out(this.config.userAgent);
  }
}
