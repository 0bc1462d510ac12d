// oclif's `command_not_found` hook: a mistyped command gets the closest command's name and a
// pointer to the list, in one line, with the usage exit code.
import type { Hook } from '@oclif/core';
import { EXIT } from './exit-codes.js';
import { didYouMean } from '../core/config/suggest.js';

const hook: Hook.CommandNotFound = async function (options) {
  const ids = options.config.commands.filter((c) => !c.hidden).map((c) => c.id.replaceAll(':', ' '));
  const typed = options.id.replaceAll(':', ' ');
  process.stderr.write(
    `Error: "${typed}" is not a ${options.config.bin} command.${didYouMean(typed, ids)}` +
      ` See "${options.config.bin} help" for the list.\n`,
  );
  this.exit(EXIT.usage);
};

export default hook;
