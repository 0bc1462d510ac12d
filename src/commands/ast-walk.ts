import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { NODE_TYPES } from '../core/ast/node-types.js';

export default class AstWalk extends BaseCommand {
  static override summary = 'Parse a filter list and print its syntax tree as a flat pre-order node list.';
  static override description = [
    'Reads FILE (or standard input for - or no FILE), parses every line with AGTree and prints {nodes, summary} ' +
      'as JSON on stdout.',
    'Each node has its type, depth, the full syntax-tree node and, with --include-context, the key and index ' +
      'under which it sits in its parent.',
    'Type and depth filters skip nodes without pruning the walk: children of a skipped node are still reported.',
  ].join('\n');

  // Short: oclif would list the 21 node types here and wrap them mid-word.
  static override usage = ['<%= command.id %> [FILE|-] [--types TYPE...] [--max-depth N] [--include-context]'];

  static override examples = [
    '<%= config.bin %> ast-walk easylist.txt --types NetworkRule --types Modifier',
    "echo '||a.com^$app=x' | <%= config.bin %> ast-walk - --max-depth 3 --include-context",
  ];

  static override args = {
    // ignoreStdin: otherwise oclif reads a piped list into FILE itself when the pipe closes within
    // 10 ms of parsing, and the walk then tries to open the list's text as a file name.
    file: Args.string({ description: 'list file; - or nothing for standard input', ignoreStdin: true }),
  };
  static override flags = {
    types: Flags.string({
      multiple: true,
      options: [...NODE_TYPES],
      // A value name instead of oclif's `<options: A|B|…>`, which it wraps mid-word; the list is in the description.
      helpValue: 'TYPE',
      description: `report only these node types; repeatable (${NODE_TYPES.join(', ')})`,
    }),
    'max-depth': Flags.integer({ min: 0, max: 50, default: 50, description: 'deepest level reported (root is 0)' }),
    'include-context': Flags.boolean({ description: 'add key and index of each node in its parent' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AstWalk);
    // Not walkAst: the flags are already checked, and loading the request schema's zod would dominate a short walk.
    const { readListInput, writeWalk, walkWorker, prestartedWalkWorker } = await import('../cli/walk-output.js');
    const text = await readListInput(args.file);
    const options = { nodeTypes: flags.types, maxDepth: flags['max-depth'], includeContext: flags['include-context'] };
    await writeWalk(text, { ...options, worker: prestartedWalkWorker(this.config) ?? walkWorker(this.config.root) });
  }
}
