// How a hook command is launched: the platform shell (non-login by default) and plugin-root substitution.
import type { DiscoveredHook } from '../types';

/** Shell selection: the platform's non-login shell unless `loginShell` is set. */
export interface ShellOptions {
  /** Run through a login shell (`bash -lc`), which sources the user's profile for every hook (slow). */
  loginShell?: boolean;
  /** Defaults to `process.platform`. */
  platform?: NodeJS.Platform;
  /** Windows command interpreter; defaults to `%COMSPEC%` or `cmd.exe`. */
  comspec?: string;
}

/** The executable and arguments a command runs with. */
export interface ShellInvocation {
  file: string;
  args: string[];
  windowsVerbatimArguments?: boolean;
}

/** Build the shell invocation for a command: `/bin/sh -c`, `bash -lc` or `%COMSPEC% /d /s /c`. */
export function shellInvocation(command: string, options: ShellOptions = {}): ShellInvocation {
  const platform = options.platform ?? process.platform;
  if (platform === 'win32') {
    const comspec = options.comspec ?? process.env.ComSpec ?? process.env.COMSPEC ?? 'cmd.exe';
    return { file: comspec, args: ['/d', '/s', '/c', `"${command}"`], windowsVerbatimArguments: true };
  }
  if (options.loginShell) return { file: 'bash', args: ['-lc', command] };
  return { file: '/bin/sh', args: ['-c', command] };
}

/** The command text a hook runs on this platform (`commandWindows` replaces `command` on Windows). */
export function commandFor(
  hook: Pick<DiscoveredHook, 'handler'>,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === 'win32' && hook.handler.commandWindows) return hook.handler.commandWindows;
  return hook.handler.command ?? '';
}

const PLUGIN_VAR =
  /\$\{(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA|PLUGIN_ROOT|PLUGIN_DATA)\}|\$(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA|PLUGIN_ROOT|PLUGIN_DATA)(?![A-Za-z0-9_])/g;

/** Replace `${PLUGIN_ROOT}`, `$CLAUDE_PLUGIN_ROOT`, … (and the DATA variants) with the plugin's paths. */
export function substitutePluginVars(command: string, plugin: { root: string; dataDir: string }): string {
  return command.replace(PLUGIN_VAR, (_m, braced: string | undefined, bare: string | undefined) =>
    (braced ?? bare ?? '').endsWith('ROOT') ? plugin.root : plugin.dataDir,
  );
}

/** Environment for a plugin hook: the parent's plus PLUGIN_ROOT/PLUGIN_DATA and their CLAUDE_ aliases. */
export function pluginEnv(base: NodeJS.ProcessEnv, plugin: { root: string; dataDir: string }): NodeJS.ProcessEnv {
  return {
    ...base,
    PLUGIN_ROOT: plugin.root,
    PLUGIN_DATA: plugin.dataDir,
    CLAUDE_PLUGIN_ROOT: plugin.root,
    CLAUDE_PLUGIN_DATA: plugin.dataDir,
  };
}
