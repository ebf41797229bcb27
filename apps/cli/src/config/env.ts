// The environment the CLI reads, parsed once (nothing else reads process.env).
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const envSchema = z.object({
  HOOKWARDEN_URL: z.string().trim().min(1).optional(),
  HOOKWARDEN_TOKEN: z.string().trim().min(1).optional(),
  HOOKWARDEN_CONTEXT: z.string().trim().min(1).optional(),
  HOOKWARDEN_CONFIG: z.string().trim().min(1).optional(),
  XDG_CONFIG_HOME: z.string().trim().min(1).optional(),
  HOME: z.string().optional(),
  NO_COLOR: z.string().optional(),
});

export type CliEnv = z.infer<typeof envSchema>;

let cached: CliEnv | undefined;

// The parsed environment (empty strings count as unset).
export function cliEnv(source: NodeJS.ProcessEnv = process.env): CliEnv {
  if (source === process.env && cached) return cached;
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = envSchema.parse(cleaned);
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
