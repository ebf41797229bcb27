// zerotwo-hooks trust / disable / enable / trust-project / lint: decisions stored in the user layer only.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { resolveLocations } from '../config/env';
import { lintFile } from '../config/lint';
import { disableHook, enableHook, trustAll, trustHook, trustProject } from '../trust/store';
import type { DiscoveredHook } from '../types';
import { discoverFor, withLocations, type CliOptions } from './options';
import { CliError, EXIT, type CliIo, type CliState } from './common';

/** The user layer directory for the CLI options. */
function userDirOf(o: CliOptions): string {
  return resolveLocations({ platform: process.platform, env: process.env, home: o.home }).userDir;
}

/** Run a change of the user layer's trust store; a failure (home a file, a symlink loop, ...) is a clear error. */
function editStore<T>(userDir: string, edit: () => T): T {
  try {
    return edit();
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(
      `cannot update the trust store ${resolve(userDir, 'config.toml')}: ${(e as Error).message}`,
      EXIT.CONFIG,
    );
  }
}

/** Find a discovered hook by key, or fail with a configuration error. */
function findHook(o: CliOptions, key: string): DiscoveredHook {
  const hook = discoverFor(o).hooks.find((h) => h.key === key);
  if (!hook) throw new CliError(`no hook with key ${JSON.stringify(key)} (see \`zerotwo-hooks list\`)`, EXIT.CONFIG);
  if (hook.managed) throw new CliError(`${key} is managed: trusted by policy, it cannot be changed here`, EXIT.CONFIG);
  return hook;
}

/** Register the trust-management and lint commands. */
export function registerManagementCommands(program: Command, io: CliIo, state: CliState): void {
  withLocations(program.command('trust [key]'))
    .description('trust a hook at its current hash (or every untrusted/modified hook with --all)')
    .option('--all', 'trust every non-managed hook that needs review')
    .action((key: string | undefined, opts: CliOptions & { all?: boolean }) => {
      const userDir = userDirOf(opts);
      if (opts.all) {
        const keys = editStore(userDir, () => trustAll(userDir, discoverFor(opts).hooks));
        io.out(keys.length === 0 ? 'nothing to trust\n' : keys.map((k) => `trusted ${k}\n`).join(''));
        return;
      }
      if (key === undefined) throw new CliError('trust needs a hook key or --all', EXIT.USAGE);
      const hook = findHook(opts, key);
      editStore(userDir, () => trustHook(userDir, key, hook.hash));
      io.out(`trusted ${key} at ${hook.hash}\n`);
    });

  withLocations(program.command('disable <key>'))
    .description('disable a non-managed hook')
    .action((key: string, opts: CliOptions) => {
      findHook(opts, key);
      const userDir = userDirOf(opts);
      editStore(userDir, () => disableHook(userDir, key));
      io.out(`disabled ${key}\n`);
    });

  withLocations(program.command('enable <key>'))
    .description('re-enable a disabled hook (it still needs trust to run)')
    .action((key: string, opts: CliOptions) => {
      findHook(opts, key);
      const userDir = userDirOf(opts);
      editStore(userDir, () => enableHook(userDir, key));
      io.out(`enabled ${key}\n`);
    });

  withLocations(program.command('trust-project [dir]'))
    .description('trust a project so its .zerotwo/ hooks load (default: --project or the current directory)')
    .action((dir: string | undefined, opts: CliOptions) => {
      const target = resolve(dir ?? opts.project ?? process.cwd());
      const userDir = userDirOf(opts);
      editStore(userDir, () => trustProject(userDir, target));
      io.out(`trusted project ${target}\n`);
    });

  withLocations(program.command('lint <file>'))
    .description(
      'validate a hooks.json, config.toml or requirements.toml (errors and warnings with locations); anything that would stop a configured hook from running (bad timeout or type, missing command, invalid matcher, an event that is not a list, an unknown event) is an error',
    )
    .addHelpText(
      'after',
      '\nExit codes:\n  0  no errors (warnings may be printed)\n  1  usage error (unknown option, bad option value)\n  2  the file has errors, or cannot be read\n',
    )
    .option('--json', 'print JSON')
    .action((file: string, opts: CliOptions & { json?: boolean }) => {
      let result;
      try {
        result = lintFile(file);
      } catch (e) {
        throw new CliError(`cannot read ${file}: ${(e as Error).message}`, EXIT.CONFIG);
      }
      if (opts.json) io.out(JSON.stringify(result, null, 2) + '\n');
      else {
        for (const d of [...result.errors, ...result.warnings]) {
          const where = `${d.file ?? file}${d.line ? `:${d.line}:${d.column ?? 1}` : ''}${d.path ? ` ${d.path}` : ''}`;
          io.out(`${where}: ${d.severity} [${d.code}] ${d.message}\n`);
        }
        io.out(`${result.errors.length} error(s), ${result.warnings.length} warning(s)\n`);
      }
      if (result.errors.length > 0) state.exitCode = EXIT.CONFIG;
    });
}
