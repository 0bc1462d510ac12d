import { createInterface } from 'node:readline';

/**
 * The new password: typed at a prompt (not echoed) on a terminal, else the first line
 * of standard input (`echo "$PASS" | flc user add …` in scripts).
 */
export async function readPassword(prompt: string): Promise<string> {
  if (process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput;
    let prompting = true;
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
      if (prompting) write.call(rl, s);
    };
    const answer = await new Promise<string>((resolve) => {
      rl.question(prompt, resolve);
      prompting = false;
    });
    rl.close();
    process.stderr.write('\n');
    return answer;
  }
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    rl.close();
    return line;
  }
  return '';
}
