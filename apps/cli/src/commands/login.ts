// `hookwarden login` and `hookwarden context list|use|current|delete`: named server contexts in config.toml.
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { ApiClient } from '../client/api-client';
import { saveConfig } from '../config/contexts';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';

interface LoginOptions {
  url?: string;
  token?: string;
  sso?: boolean;
  browser: boolean;
  verify: boolean;
}

// Reads a token from stdin (`--token -`), bounded to 8 KiB.
async function readStdinToken(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > 8192) throw new CliError('the token on stdin is longer than 8 KiB');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

// Reads one line from an interactive terminal without echoing it (a pasted token), bounded to 8 KiB.
function readHiddenLine(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    let line = '';
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    const done = (err: Error | null): void => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(line.trim());
    };
    const onData = (chunk: Buffer): void => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(null);
        if (ch === '\u0003') return done(new CliError('cancelled'));
        if (ch === '\u007f' || ch === '\b') line = line.slice(0, -1);
        else line += ch;
        if (line.length > 8192) return done(new CliError('the pasted token is longer than 8 KiB'));
      }
    };
    stdin.on('data', onData);
  });
}

// Opens a URL in the desktop's browser, best effort (nothing happens where there is none).
function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no browser here: the URL is printed
  }
}

// SSO sign-in for the CLI: checks the server offers single sign-on, sends the person to the console page that mints a
// personal token with their role (the browser signs in through the identity provider), and reads the token they
// paste (or pipe in). Returns the token.
async function tokenThroughSso(base: string, opts: LoginOptions, warn: (text: string) => void): Promise<string> {
  const config = await new ApiClient({ baseUrl: base }).json<{ sso?: { enabled?: boolean } }>('GET', '/v1/auth/config');
  if (!config?.sso?.enabled) {
    throw new CliError(`${base} has no single sign-on configured: pass --token (an API token) instead`);
  }
  const page = `${base}/console/cli-tokens`;
  warn(`sign in with single sign-on at ${page}, create a CLI token there, then paste it here`);
  if (opts.browser && process.stdout.isTTY) openBrowser(page);
  if (process.stdin.isTTY) return readHiddenLine('Token: ');
  return readStdinToken();
}

// Registers `login` and `context`.
export function registerContextCommands(program: Command): void {
  const login = program
    .command('login')
    .description(
      'Store a server URL and token as a named context (config.toml, mode 0600) and make it current; ' +
        'name it with the global --context NAME (default: the URL host)',
    )
    .option('--url <url>', 'API base URL, e.g. https://hookwarden.example.com')
    .option('--token <token>', 'API token (hwt_…); `-` reads it from stdin')
    .option(
      '--sso',
      'sign in through the server’s single sign-on: opens the console page that mints a personal CLI token with ' +
        'your role, then reads the token you paste',
    )
    .option('--no-browser', 'with --sso: print the page to open instead of opening a browser')
    .option('--no-verify', 'store without checking the token against the server')
    .action(async (opts: LoginOptions, cmd: Command) => {
      const rt = runtimeOf(cmd);
      if (!opts.url) throw new CliError('login needs --url');
      if (opts.sso && opts.token) throw new CliError('pass either --sso or --token, not both');
      if (!opts.sso && !opts.token) {
        throw new CliError('login needs --token (or --token - to read it from stdin), or --sso');
      }
      let url: URL;
      try {
        url = new URL(opts.url);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
      } catch {
        throw new CliError(`--url: invalid URL ${JSON.stringify(opts.url)} (expected http(s)://host[:port])`);
      }
      const base = url.toString().replace(/\/+$/, '');
      const name = rt.globals.context ?? url.host;
      const token = opts.sso
        ? await tokenThroughSso(base, opts, (t) => rt.warn(t))
        : opts.token === '-'
          ? await readStdinToken()
          : opts.token!;
      if (token === '') throw new CliError('no token was given');
      if (opts.verify) {
        // Any read route proves the token works (auditor tokens included).
        await new ApiClient({ baseUrl: base, token }).json('GET', '/v1/groups', { query: { limit: 1 } });
      }
      const loaded = await rt.config();
      loaded.config.contexts[name] = { url: base, token };
      loaded.config.current = name;
      await saveConfig(loaded, (m) => rt.warn(m));
      if (rt.format === 'json') rt.json({ context: name, url: base, configFile: loaded.file });
      else rt.out(`Logged in to ${base} as context "${name}" (saved in ${loaded.file}).\n`);
    });
  examples(login, [
    'hookwarden --context prod login --url https://hookwarden.example.com --token hwt_…',
    'hookwarden login --context prod --url https://hookwarden.example.com --token hwt_…',
    'printf %s "$TOKEN" | hookwarden login --url https://hookwarden.example.com --token -',
    'hookwarden login --url https://hookwarden.example.com --sso',
  ]);

  const context = program.command('context').description('List, switch and delete stored contexts');
  examples(context, ['hookwarden context list', 'hookwarden context use prod']);

  examples(
    context
      .command('list')
      .description('List stored contexts (the current one is marked)')
      .action(async (_o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const { config } = await rt.config();
        const items = Object.entries(config.contexts).map(([name, c]) => ({
          name,
          url: c.url,
          current: name === config.current,
          hasToken: Boolean(c.token),
        }));
        rt.list({ items }, [
          { header: 'CURRENT', get: (r) => (r.current ? '*' : '') },
          { header: 'NAME', get: (r) => r.name },
          { header: 'URL', get: (r) => r.url, max: 80 },
          { header: 'TOKEN', get: (r) => (r.hasToken ? 'stored' : '-') },
        ]);
      }),
    ['hookwarden context list', 'hookwarden context list -o json'],
  );

  examples(
    context
      .command('use <name>')
      .description('Make a stored context the current one')
      .action(async (name: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const loaded = await rt.config();
        if (!loaded.config.contexts[name]) {
          const known = Object.keys(loaded.config.contexts).join(', ') || 'none';
          throw new CliError(`no context named ${JSON.stringify(name)} (known: ${known})`);
        }
        loaded.config.current = name;
        await saveConfig(loaded, (m) => rt.warn(m));
        if (rt.format === 'json') rt.json({ current: name });
        else rt.out(`Switched to context "${name}".\n`);
      }),
    ['hookwarden context use staging'],
  );

  examples(
    context
      .command('current')
      .description('Show the server the next command talks to, and why')
      .action(async (_o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const t = await rt.target();
        rt.record({ context: t.context ?? null, url: t.url, source: t.source, token: t.token ? 'set' : 'missing' });
      }),
    ['hookwarden context current', 'HOOKWARDEN_URL=http://localhost:3000 hookwarden context current'],
  );

  examples(
    context
      .command('delete <name>')
      .description('Remove a stored context (and its token)')
      .action(async (name: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const loaded = await rt.config();
        if (!loaded.config.contexts[name]) throw new CliError(`no context named ${JSON.stringify(name)}`);
        delete loaded.config.contexts[name];
        if (loaded.config.current === name) delete loaded.config.current;
        await saveConfig(loaded, (m) => rt.warn(m));
        if (rt.format === 'json') rt.json({ deleted: name });
        else rt.out(`Deleted context "${name}".\n`);
      }),
    ['hookwarden context delete old-staging'],
  );
}
