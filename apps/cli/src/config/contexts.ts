// Contexts (named server URL + token) in config.toml, and how the current one is chosen.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import type { z } from 'zod';
import { CliError } from '../cli/errors';
import { type CliEnv, cliEnv, defaultConfigPath } from './env';
import { readBounded, securePrivateDir, writePrivate } from './files';

const MAX_CONFIG_BYTES = 1024 * 1024;

// The config file's schemas (zod loads when a config file or a server URL needs judging, not for `--version`).
function makeSchemas({ z }: typeof import('zod')) {
  const serverUrl = z.url({ protocol: /^https?$/ });
  const contextSchema = z
    .object({
      url: serverUrl,
      token: z.string().min(1).max(4096).optional(),
    })
    .strict();
  const configSchema = z
    .object({
      current: z.string().min(1).optional(),
      contexts: z.record(z.string().min(1).max(200), contextSchema).default({}),
    })
    .strict();
  return { serverUrl, contextSchema, configSchema };
}
let built: ReturnType<typeof makeSchemas> | undefined;
// The schemas, made on first use.
function schemas(): ReturnType<typeof makeSchemas> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (built ??= makeSchemas(require('zod') as typeof import('zod')));
}

export type ContextEntry = z.infer<ReturnType<typeof makeSchemas>['contextSchema']>;
export type CliConfig = z.infer<ReturnType<typeof makeSchemas>['configSchema']>;

/** A URL of the plainest form: scheme, host of letters, digits, dots and dashes, a port, a path of unreserved characters. */
const PLAIN_HTTP_URL = /^https?:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:\/[A-Za-z0-9._~\/-]*)?$/;

// The schema's reading of a config that holds no context (an empty file, or only `current`), without zod.
function plainConfig(doc: unknown): { success: true; data: CliConfig } | undefined {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const keys = Object.keys(doc);
  const current = (doc as { current?: unknown }).current;
  if (keys.length === 0) return { success: true, data: { contexts: {} } };
  if (keys.length === 1 && typeof current === 'string' && current.length > 0)
    return { success: true, data: { current, contexts: {} } };
  return undefined;
}

// Whether `url` is an http(s) server URL the config schema accepts: a plain one that the URL parser reads is (the
// schema checks exactly that for it), anything else the schema judges.
export function isServerUrl(url: string): boolean {
  if (PLAIN_HTTP_URL.test(url) && URL.canParse(url)) return true;
  return schemas().serverUrl.safeParse(url).success;
}

/** Where the configuration lives and what it holds. */
export interface LoadedConfig {
  file: string;
  dir: string;
  config: CliConfig;
}

// The config file path: an explicit --config, else HOOKWARDEN_CONFIG / XDG_CONFIG_HOME / ~/.config.
export function configPath(explicit: string | undefined, env: CliEnv = cliEnv()): string {
  return explicit ? path.resolve(explicit) : defaultConfigPath(env);
}

// Loads config.toml (an absent file is an empty configuration); warns when others can read it.
export async function loadConfig(file: string, warn: (msg: string) => void = () => {}): Promise<LoadedConfig> {
  const raw = await readBounded(file, MAX_CONFIG_BYTES);
  if (raw === null) return { file, dir: path.dirname(file), config: { contexts: {} } };
  const mode = (await stat(file)).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    warn(`${file} is readable by other users (mode 0${mode.toString(8)}); it holds tokens: chmod 600 it`);
  }
  let doc: unknown;
  try {
    doc = parseToml(raw.toString('utf8'));
  } catch (err) {
    const e = err as { line?: number; column?: number; message: string };
    throw new CliError(`${file}: invalid TOML`, [
      { file, line: e.line, column: e.column, message: e.message.split('\n')[0] ?? e.message },
    ]);
  }
  const parsed = plainConfig(doc) ?? schemas().configSchema.safeParse(doc);
  if (!parsed.success) {
    throw new CliError(
      `${file}: invalid configuration`,
      parsed.error.issues.map((i) => ({ file, path: i.path.join('.'), message: i.message })),
    );
  }
  return { file, dir: path.dirname(file), config: parsed.data };
}

// Writes config.toml atomically with mode 0600, in a folder no other user can write (tightened or refused).
export async function saveConfig(loaded: LoadedConfig, warn: (msg: string) => void = () => {}): Promise<void> {
  const note = await securePrivateDir(path.dirname(loaded.file));
  if (note) warn(note);
  const doc: Record<string, unknown> = {};
  if (loaded.config.current) doc.current = loaded.config.current;
  doc.contexts = loaded.config.contexts;
  const header = '# hookwarden CLI contexts (written by `hookwarden login`; holds tokens: keep it private)\n';
  await writePrivate(loaded.file, header + stringifyToml(doc) + '\n');
}

/** The server and credential a command talks to, and where they came from. */
export interface Target {
  url: string;
  token: string | undefined;
  context: string | undefined;
  source: string;
}

// Picks the target: HOOKWARDEN_URL/HOOKWARDEN_TOKEN override the chosen (--context, HOOKWARDEN_CONTEXT, current)
// context.
export function resolveTarget(loaded: LoadedConfig, contextName: string | undefined, env: CliEnv = cliEnv()): Target {
  const name = contextName ?? env.HOOKWARDEN_CONTEXT ?? loaded.config.current;
  const entry = name !== undefined ? loaded.config.contexts[name] : undefined;
  if (name !== undefined && !entry && (contextName !== undefined || !env.HOOKWARDEN_URL)) {
    const known = Object.keys(loaded.config.contexts);
    throw new CliError(
      `no context named ${JSON.stringify(name)} in ${loaded.file}` +
        (known.length ? ` (known: ${known.join(', ')})` : ' (run `hookwarden login` first)'),
    );
  }
  const url = env.HOOKWARDEN_URL ?? entry?.url;
  if (!url) {
    throw new CliError(
      'no server configured: run `hookwarden login --url URL --token TOKEN`, or set HOOKWARDEN_URL and HOOKWARDEN_TOKEN',
    );
  }
  if (!isServerUrl(url))
    throw new CliError(`invalid server URL ${JSON.stringify(url)} (expected http(s)://host[:port])`);
  return {
    url: url.replace(/\/+$/, ''),
    token: env.HOOKWARDEN_TOKEN ?? entry?.token,
    context: entry ? name : undefined,
    source: env.HOOKWARDEN_URL ? 'HOOKWARDEN_URL' : `context ${name}`,
  };
}
