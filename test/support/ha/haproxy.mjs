// HAProxy in front of API instances, and the real API/worker processes behind it: shared by the HA tests
// (test/support/ha/cluster.ts) and bench/scale. Loopback ports, a temp directory for the config, nothing global.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

// True when a command is on PATH.
export function installed(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

// The HAProxy configuration: one HTTP frontend, every API instance health-checked on /readyz (down after two failed
// checks 500 ms apart, each allowed 2 s), least connections (long polls spread evenly), a refused connection retried on another server.
// When every instance is unready at once (a shared dependency failing over: Redis, the PostgreSQL primary), the same
// instances serve as an unchecked backup pool: they answer what they can and 503 + Retry-After for the rest, instead
// of HAProxy's own 503 for everything.
// `statsSocket`: a path for HAProxy's admin socket (show info, show stat); `errorLog`: abnormal requests only (termination
// state other than normal) logged to stdout.
export function haproxyConfig({ port, servers, maxconn = 4096, statsSocket, errorLog = false }) {
  return [
    'global',
    `  maxconn ${maxconn}`,
    '  nbthread 1',
    // Keep a finished request's server connection for the client's next request at any descriptor use (defaults: not
    // above 20% of maxsock), so kept-alive agents re-poll without a new connection to an instance each time.
    '  tune.pool-low-fd-ratio 90',
    '  tune.pool-high-fd-ratio 95',
    ...(statsSocket ? [`  stats socket ${statsSocket} mode 600 level admin`] : []),
    ...(errorLog ? ['  log stdout format raw local0 info'] : []),
    'defaults',
    '  mode http',
    '  option httplog',
    ...(errorLog ? ['  log global', '  option dontlog-normal'] : []),
    '  option forwardfor',
    '  option redispatch 1',
    '  retries 3',
    '  retry-on conn-failure',
    '  timeout connect 1s',
    // Longer than the longest long poll (60 s) plus the agent's margin.
    '  timeout client 90s',
    '  timeout server 90s',
    '  timeout http-request 10s',
    '  timeout queue 10s',
    `  maxconn ${maxconn}`,
    'frontend api',
    `  bind 127.0.0.1:${port}`,
    '  default_backend instances',
    'backend instances',
    '  balance leastconn',
    '  option prefer-last-server',
    '  option allbackups',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  timeout check 2s',
    // Idle server connections left when clients leave are halved every second (default 5 s), so none is reused near
    // the instance's keep-alive timeout (72 s), when it may close the connection under the reused request.
    '  default-server inter 1s fastinter 500 downinter 500 fall 2 rise 2 pool-purge-delay 1s',
    ...servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check`),
    ...servers.map((s) => `  server ${s.name}-unready 127.0.0.1:${s.port} backup`),
    '',
  ].join('\n');
}

// Spawns a command with the open-file limit raised to `fdLimit` (the shell's ulimit, then exec), output kept.
export function spawnLimited(command, args, { env = process.env, fdLimit = 65536, keep = 200, stdin = 'ignore' } = {}) {
  const child = spawn(
    'sh',
    ['-c', `ulimit -n ${fdLimit} 2>/dev/null || ulimit -n $(ulimit -Hn); exec "$0" "$@"`, command, ...args],
    {
      cwd: ROOT,
      env,
      stdio: [stdin, 'pipe', 'pipe'],
    },
  );
  const output = [];
  const collect = (b) => {
    output.push(b.toString());
    if (output.length > keep) output.shift();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return { child, output, exited, alive: () => child.exitCode === null && child.signalCode === null };
}

// Kills a process spawned by spawnLimited (SIGKILL by default) and waits for it.
export async function killProcess(proc, signal = 'SIGKILL') {
  if (!proc || !proc.alive()) return;
  proc.child.kill(signal);
  const timer = signal === 'SIGKILL' ? null : setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
  await proc.exited;
  if (timer) clearTimeout(timer);
}

// Starts the built API (apps/api/dist/main.js) or worker (worker.js) with `env`.
export function startNode(script, env, fdLimit) {
  return spawnLimited(process.execPath, [path.join(ROOT, `apps/api/dist/${script}.js`)], { env, fdLimit });
}

// Polls `check` every 50 ms until it is truthy, or throws naming `what` after `timeoutMs`.
export async function until(check, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await Promise.resolve()
      .then(check)
      .catch(() => false);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// True when GET <url>/readyz answers 200 within a second.
export async function ready(url) {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) }).catch(() => null);
  await res?.body?.cancel();
  return res?.status === 200;
}

// Starts HAProxy (foreground, its config in `dir`) on `port` in front of `servers` ({ name, port }).
// `name` names its config file (several processes may share `dir`); `statsSocket` and `errorLog` as in haproxyConfig.
export function startHaproxy({ dir, port, servers, maxconn, fdLimit, name = 'haproxy', statsSocket, errorLog }) {
  const cfg = path.join(dir, `${name}.cfg`);
  writeFileSync(cfg, haproxyConfig({ port, servers, maxconn, statsSocket, errorLog }));
  const check = spawnSync('haproxy', ['-c', '-q', '-f', cfg], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy refuses its configuration: ${check.stderr}${check.stdout}`);
  return spawnLimited('haproxy', ['-db', '-f', cfg], { fdLimit });
}
