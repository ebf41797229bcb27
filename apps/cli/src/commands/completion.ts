// `hookwarden completion bash|zsh|fish`: shell completion generated from the command tree.
import type { Command } from 'commander';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';

interface Node {
  path: string[];
  subcommands: string[];
  options: string[];
}

// Every command path with its subcommand names and long options.
function walk(cmd: Command, path: string[] = [], out: Node[] = []): Node[] {
  const subs = cmd.commands.filter((c) => c.name() !== 'help');
  const options = cmd.options.map((o) => o.long).filter((x): x is string => Boolean(x));
  out.push({ path, subcommands: subs.flatMap((c) => [c.name(), ...c.aliases()]), options: [...options, '--help'] });
  for (const c of subs) walk(c, [...path, c.name()], out);
  return out;
}

// The bash completion script.
function bash(nodes: Node[], globals: string[]): string {
  const cases = nodes
    .map((n) => `    "${n.path.join(' ')}") words="${[...n.subcommands, ...n.options, ...globals].join(' ')}" ;;`)
    .join('\n');
  return `# bash completion for hookwarden: eval "$(hookwarden completion bash)"
_hookwarden() {
  local cur path="" w i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case "\${path:+$path }$w" in
${nodes
  .map((n) => `      "${n.path.join(' ')}") path="${n.path.join(' ')}" ;;`)
  .filter((l) => !l.includes('"")'))
  .join('\n')}
    esac
  done
  local words=""
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _hookwarden hookwarden
`;
}

// The zsh completion script (bash-compatible completion through bashcompinit).
function zsh(nodes: Node[], globals: string[]): string {
  return `#compdef hookwarden
# zsh completion for hookwarden: eval "$(hookwarden completion zsh)" (or save as _hookwarden in $fpath)
autoload -U +X bashcompinit && bashcompinit
${bash(nodes, globals).replace(/^# bash completion.*\n/, '')}`;
}

// The fish completion script.
function fish(nodes: Node[]): string {
  const lines = ['# fish completion for hookwarden: hookwarden completion fish | source'];
  for (const n of nodes) {
    const cond =
      n.path.length === 0 ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${n.path[n.path.length - 1]}`;
    for (const s of n.subcommands) lines.push(`complete -c hookwarden -f -n '${cond}' -a '${s}'`);
    for (const o of n.options) lines.push(`complete -c hookwarden -n '${cond}' -l '${o.replace(/^--/, '')}'`);
  }
  return lines.join('\n') + '\n';
}

// Registers `completion`.
export function registerCompletionCommand(program: Command): void {
  examples(
    program
      .command('completion <shell>')
      .description('Print a shell completion script (bash, zsh or fish)')
      .action((shell: string) => {
        const nodes = walk(program);
        const globals = nodes[0]!.options;
        const script =
          shell === 'bash'
            ? bash(nodes, globals)
            : shell === 'zsh'
              ? zsh(nodes, globals)
              : shell === 'fish'
                ? fish(nodes)
                : null;
        if (script === null) throw new CliError(`unsupported shell ${JSON.stringify(shell)}: use bash, zsh or fish`);
        process.stdout.write(script);
      }),
    [
      'eval "$(hookwarden completion bash)"',
      'hookwarden completion zsh > "${fpath[1]}/_hookwarden"',
      'hookwarden completion fish | source',
    ],
  );
}
