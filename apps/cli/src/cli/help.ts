// Help text helpers: every command carries examples.
import type { Command } from 'commander';

// Appends an "Examples:" section to a command's --help.
export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}
