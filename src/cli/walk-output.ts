import { readFile } from 'node:fs/promises';
import type { WalkResult } from '../core/ast/walk-tree.js';
import { walkResultJson } from '../core/ast/walk-json.js';

/** The text of FILE, or of standard input for `-` or no file. */
export async function readListInput(file: string | undefined): Promise<string> {
  if (file && file !== '-') return readFile(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Writes `{nodes, summary}` as JSON to stdout chunk by chunk, honouring backpressure.
 * A reader that stops early (`| head`) ends the output quietly.
 */
export async function writeWalkResult(result: WalkResult, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  let failure: Error | null = null;
  const onError = (err: Error) => {
    failure = err;
  };
  out.on('error', onError);
  try {
    const write = async (chunk: string) => {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', resolve));
    };
    for (const chunk of walkResultJson(result)) {
      if (failure) break;
      await write(chunk);
    }
    if (!failure) await write('\n');
  } finally {
    out.off('error', onError);
  }
  if (failure && (failure as NodeJS.ErrnoException).code !== 'EPIPE') throw failure;
}
