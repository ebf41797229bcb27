// The environment the CLI reads, parsed once (nothing else reads process.env).
import os from 'node:os';
import path from 'node:path';

/** The variables the CLI reads: `trim` ones are read trimmed (every one is dropped when empty or blank). */
const ENV_VARIABLES = {
  HOOKWARDEN_URL: 'trim',
  HOOKWARDEN_TOKEN: 'trim',
  HOOKWARDEN_CONTEXT: 'trim',
  HOOKWARDEN_CONFIG: 'trim',
  XDG_CONFIG_HOME: 'trim',
  HOME: 'as-is',
  NO_COLOR: 'as-is',
} as const satisfies Record<string, 'trim' | 'as-is'>;

export type CliEnv = { -readonly [K in keyof typeof ENV_VARIABLES]?: string };

// The variables the CLI reads, from an environment (no zod: every command, `--version` too, reads them).
function parseEnv(source: NodeJS.ProcessEnv): CliEnv {
  const env: CliEnv = {};
  for (const [name, how] of Object.entries(ENV_VARIABLES) as [keyof CliEnv, 'trim' | 'as-is'][]) {
    const value = source[name];
    if (value === undefined || value.trim() === '') continue;
    env[name] = how === 'trim' ? value.trim() : value;
  }
  return env;
}

let cached: CliEnv | undefined;

// The parsed environment (empty strings count as unset).
export function cliEnv(source: NodeJS.ProcessEnv = process.env): CliEnv {
  if (source === process.env && cached) return cached;
  const parsed = parseEnv(source);
  if (source === process.env) cached = parsed;
  return parsed;
}

// The default config file: $XDG_CONFIG_HOME/hookwarden/config.toml, else ~/.config/hookwarden/config.toml.
export function defaultConfigPath(env: CliEnv = cliEnv()): string {
  if (env.HOOKWARDEN_CONFIG) return path.resolve(env.HOOKWARDEN_CONFIG);
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(env.HOME ?? os.homedir(), '.config');
  return path.join(base, 'hookwarden', 'config.toml');
}
