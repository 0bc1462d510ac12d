import { Flags } from '@oclif/core';

/**
 * `--version` on a command: the bare version, as `flc --version` and the reference compiler print
 * it (oclif's own flag prints `flc/<version> <platform> node-<version>`, which `flc version
 * --verbose` shows).
 */
export const versionFlag = () =>
  Flags.boolean({
    description: 'print the version',
    async parse(_, command) {
      command.log(command.config.version);
      command.exit(0);
      return true;
    },
  });
