// The hookwarden command line (commander): global options, then one register…Commands(program) per feature, each
// feature's module loaded only when the command line names it (or when all are needed: help, completion).
import { Command, Option } from 'commander';
import { CLI_VERSION } from '../version';
import { examples } from './help';

/** A command group: the top-level commands (names and aliases) its module registers, and that module's register. */
export interface CommandGroup {
  names: readonly string[];
  load(): (program: Command) => void;
}

/* eslint-disable @typescript-eslint/no-require-imports -- each group's module loads when its command is used */
/** Every command group, in help order (program.test.ts holds the names against what each module registers). */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  {
    names: ['login', 'context'],
    load: () => (require('../commands/login') as typeof import('../commands/login')).registerContextCommands,
  },
  {
    names: ['groups', 'group'],
    load: () => (require('../commands/groups') as typeof import('../commands/groups')).registerGroupCommands,
  },
  {
    names: ['audit-settings'],
    load: () =>
      (require('../commands/audit-settings') as typeof import('../commands/audit-settings'))
        .registerAuditSettingsCommands,
  },
  {
    names: ['policies', 'policy'],
    load: () => (require('../commands/policies') as typeof import('../commands/policies')).registerPolicyCommands,
  },
  {
    names: ['versions', 'version'],
    load: () => (require('../commands/versions') as typeof import('../commands/versions')).registerVersionCommands,
  },
  {
    names: ['releases', 'release'],
    load: () => (require('../commands/releases') as typeof import('../commands/releases')).registerReleaseCommands,
  },
  {
    names: ['rollout'],
    load: () => (require('../commands/rollout') as typeof import('../commands/rollout')).registerRolloutCommands,
  },
  {
    names: ['endpoints', 'endpoint'],
    load: () => (require('../commands/endpoints') as typeof import('../commands/endpoints')).registerEndpointCommands,
  },
  {
    names: ['fleet'],
    load: () => (require('../commands/fleet') as typeof import('../commands/fleet')).registerFleetCommands,
  },
  {
    names: ['enrollment-secrets'],
    load: () =>
      (require('../commands/enrollment-secrets') as typeof import('../commands/enrollment-secrets'))
        .registerEnrollmentSecretCommands,
  },
  {
    names: ['tokens', 'token'],
    load: () => (require('../commands/tokens') as typeof import('../commands/tokens')).registerTokenCommands,
  },
  {
    names: ['sessions', 'session'],
    load: () => (require('../commands/sessions') as typeof import('../commands/sessions')).registerSessionCommands,
  },
  {
    names: ['signing-keys'],
    load: () =>
      (require('../commands/signing-keys') as typeof import('../commands/signing-keys')).registerSigningKeyCommands,
  },
  {
    names: ['inventory'],
    load: () => (require('../commands/inventory') as typeof import('../commands/inventory')).registerInventoryCommands,
  },
  {
    names: ['hook-runs'],
    load: () => (require('../commands/hook-runs') as typeof import('../commands/hook-runs')).registerHookRunCommands,
  },
  {
    names: ['audit-log'],
    load: () => (require('../commands/audit-log') as typeof import('../commands/audit-log')).registerAuditLogCommands,
  },
  {
    names: ['streaming', 'destinations'],
    load: () => (require('../commands/streaming') as typeof import('../commands/streaming')).registerStreamingCommands,
  },
  {
    names: ['alerts', 'alert'],
    load: () => (require('../commands/alerts') as typeof import('../commands/alerts')).registerAlertCommands,
  },
  {
    names: ['plan', 'apply', 'validate', 'export'],
    load: () => (require('../commands/gitops') as typeof import('../commands/gitops')).registerGitopsCommands,
  },
  {
    names: ['completion'],
    load: () =>
      (require('../commands/completion') as typeof import('../commands/completion')).registerCompletionCommand,
  },
];
/* eslint-enable @typescript-eslint/no-require-imports */

/** The groups a command line needs: the ones it names, or all (no command named, or one that lists them all). */
function groupsFor(args: readonly string[] | undefined): readonly CommandGroup[] {
  if (args === undefined) return COMMAND_GROUPS;
  const named = COMMAND_GROUPS.filter((g) => g.names.some((n) => args.includes(n)));
  const whole = named.length === 0 || named.some((g) => g.names.includes('completion'));
  return whole ? COMMAND_GROUPS : named;
}

// Builds the CLI program. `withVersion` false leaves out the root's -V/--version, so that a subcommand's own
// `--version <n>` (releases create/preview) is not taken for it: commander matches the root's options anywhere.
// With `args` (the command line after the executable) only the command groups it names are registered.
export function buildProgram(withVersion = true, args?: readonly string[]): Command {
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
  for (const group of groupsFor(args)) group.load()(program);
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
export function namesSubcommand(args: readonly string[]): boolean {
  return COMMAND_GROUPS.some((g) => g.names.some((n) => args.includes(n)));
}
