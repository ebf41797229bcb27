// What every command needs: the global options, the configuration, an API client and the output writers.
import type { Command } from 'commander';
import { ApiClient } from '../client/api-client';
import { configPath, type LoadedConfig, loadConfig, resolveTarget, type Target } from '../config/contexts';
import { cliEnv } from '../config/env';
import { type Column, renderRecord, renderTable } from '../output/table';
import { CliError } from './errors';
import { parseDuration } from './parse';

export type OutputFormat = 'table' | 'json';

/** The global options (on the root program). */
export interface GlobalOptions {
  config?: string;
  context?: string;
  output?: string;
  timeout?: string;
}

/** The runtime of one command. */
export class Runtime {
  private loaded?: LoadedConfig;
  private clientCache?: ApiClient;
  private targetCache?: Target;

  constructor(readonly globals: GlobalOptions) {}

  // The output format (--output table|json).
  get format(): OutputFormat {
    const o = this.globals.output ?? 'table';
    if (o !== 'table' && o !== 'json') throw new CliError(`--output must be table or json, got ${JSON.stringify(o)}`);
    return o;
  }

  // The config file path.
  get configFile(): string {
    return configPath(this.globals.config);
  }

  // The loaded configuration (read once).
  async config(): Promise<LoadedConfig> {
    this.loaded ??= await loadConfig(this.configFile, (m) => this.warn(m));
    return this.loaded;
  }

  // The server and token to use.
  async target(): Promise<Target> {
    this.targetCache ??= resolveTarget(await this.config(), this.globals.context, cliEnv());
    return this.targetCache;
  }

  // An API client for the target (requires a token).
  async client(): Promise<ApiClient> {
    if (this.clientCache) return this.clientCache;
    const t = await this.target();
    if (!t.token) {
      throw new CliError(`no token for ${t.url}: run \`hookwarden login\` or set HOOKWARDEN_TOKEN`);
    }
    warnPlainHttp(t.url, (m) => this.warn(m));
    const timeoutMs = this.globals.timeout ? parseDuration(this.globals.timeout, '--timeout') * 1000 : undefined;
    this.clientCache = new ApiClient({ baseUrl: t.url, token: t.token, timeoutMs });
    return this.clientCache;
  }

  // Writes to stdout.
  out(text: string): void {
    process.stdout.write(text);
  }

  // Writes a diagnostic line to stderr.
  warn(text: string): void {
    process.stderr.write(`hookwarden: ${text}\n`);
  }

  // Prints a value as JSON (always one parseable document).
  json(value: unknown): void {
    this.out(JSON.stringify(value, null, 2) + '\n');
  }

  // Prints a list: JSON as given, or a table of its items (+ a hint for the next page).
  list<T>(value: { items: T[]; nextCursor?: string | null }, columns: Array<Column<T>>): void {
    if (this.format === 'json') return this.json(value);
    if (value.items.length === 0) this.out('(none)\n');
    else this.out(renderTable(value.items, columns));
    if (value.nextCursor) this.warn(`more results: add --cursor ${value.nextCursor} (or --all)`);
  }

  // Prints one object: JSON, or `key: value` lines of the chosen fields.
  record(value: object, pick?: (v: never) => Record<string, unknown>): void {
    if (this.format === 'json') return this.json(value);
    this.out(renderRecord(pick ? pick(value as never) : (value as Record<string, unknown>)));
  }
}

// Warns when a token would travel over plain HTTP to a host other than this machine.
function warnPlainHttp(url: string, warn: (m: string) => void): void {
  const u = new URL(url);
  const loopback = ['localhost', '127.0.0.1', '[::1]', '::1'].includes(u.hostname);
  if (u.protocol === 'http:' && !loopback) warn(`${url} is plain HTTP: the token is sent unencrypted`);
}

// The runtime of a command action (global options from the root program).
export function runtimeOf(cmd: Command): Runtime {
  let root = cmd;
  while (root.parent) root = root.parent;
  return new Runtime(root.opts<GlobalOptions>());
}
