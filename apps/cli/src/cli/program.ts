// The hookwarden command line (commander): global options, then one register…Commands(program) per feature.
import { Command, Option } from 'commander';
import { registerAlertCommands } from '../commands/alerts';
import { registerAuditLogCommands } from '../commands/audit-log';
import { registerAuditSettingsCommands } from '../commands/audit-settings';
import { registerCompletionCommand } from '../commands/completion';
import { registerEndpointCommands } from '../commands/endpoints';
import { registerEnrollmentSecretCommands } from '../commands/enrollment-secrets';
import { registerGitopsCommands } from '../commands/gitops';
import { registerGroupCommands } from '../commands/groups';
import { registerHookRunCommands } from '../commands/hook-runs';
import { registerInventoryCommands } from '../commands/inventory';
import { registerContextCommands } from '../commands/login';
import { registerPolicyCommands } from '../commands/policies';
import { registerReleaseCommands } from '../commands/releases';
import { registerRolloutCommands } from '../commands/rollout';
import { registerSigningKeyCommands } from '../commands/signing-keys';
import { registerStreamingCommands } from '../commands/streaming';
import { registerTokenCommands } from '../commands/tokens';
import { registerVersionCommands } from '../commands/versions';
import { CLI_VERSION } from '../version';
import { examples } from './help';

// Builds the CLI program. `withVersion` false leaves out the root's -V/--version, so that a subcommand's own
// `--version <n>` (releases create/preview) is not taken for it: commander matches the root's options anywhere.
export function buildProgram(withVersion = true): Command {
  const program = new Command('hookwarden')
    .description(
      'Hookwarden admin CLI: groups, policies, versions, releases and rollouts, endpoints, tokens, hook runs, the ' +
        'hook inventory, the audit log, and GitOps (plan / apply / export of a directory).',
    )
    .option(
      '--config <file>',
      'config file (default: $XDG_CONFIG_HOME/hookwarden/config.toml or ~/.config/hookwarden/config.toml)',
    )
    .option('--context <name>', 'use this stored context instead of the current one')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('--timeout <duration>', 'per-request timeout (default 30s)')
    .showHelpAfterError()
    .enablePositionalOptions(false)
    .exitOverride();
  if (withVersion) program.version(CLI_VERSION, '-V, --version', 'print the CLI version');
  examples(program, [
    'hookwarden login --url https://hookwarden.example.com --token hwt_… --context prod',
    'hookwarden groups list',
    'hookwarden plan -f ./gitops',
    'HOOKWARDEN_URL=https://hw.example.com HOOKWARDEN_TOKEN=$TOKEN hookwarden apply -f ./gitops --watch',
  ]);
  program.addHelpText(
    'after',
    '\nEnvironment: HOOKWARDEN_URL and HOOKWARDEN_TOKEN override the stored context; HOOKWARDEN_CONTEXT picks one;\n' +
      'HOOKWARDEN_CONFIG names the config file. Exit codes: 0 ok, 1 error, 2 plan has changes, 3 rollout paused.\n',
  );
  registerContextCommands(program);
  registerGroupCommands(program);
  registerAuditSettingsCommands(program);
  registerPolicyCommands(program);
  registerVersionCommands(program);
  registerReleaseCommands(program);
  registerRolloutCommands(program);
  registerEndpointCommands(program);
  registerEnrollmentSecretCommands(program);
  registerTokenCommands(program);
  registerSigningKeyCommands(program);
  registerInventoryCommands(program);
  registerHookRunCommands(program);
  registerAuditLogCommands(program);
  registerStreamingCommands(program);
  registerAlertCommands(program);
  registerGitopsCommands(program);
  registerCompletionCommand(program);
  // Subcommands inherit exitOverride and the help-after-error behaviour.
  const inherit = (cmd: Command) => {
    for (const c of cmd.commands) {
      c.exitOverride().showHelpAfterError();
      inherit(c);
    }
  };
  inherit(program);
  return program;
}

// True when the arguments name a subcommand (then -V/--version belongs to it, not to the root).
export function namesSubcommand(program: Command, args: string[]): boolean {
  const names = new Set(program.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  return args.some((a) => names.has(a));
}
