// A real syslog collector for tests: Debian's rsyslogd on a loopback port of the test's own (imtcp, octet-counted
// frames; TLS through rsyslog-gnutls when given a certificate), writing every message it receives (%rawmsg%, one per
// line) to a file. stop() ends it (SIGTERM: it flushes what it read), start() brings it back on the same port.
// The port is checked to be rsyslogd's own listener (`ss`): a port taken by another process between freePort() and
// rsyslogd's bind (busy machines, parallel lanes) would otherwise pass the connect probe and swallow the messages;
// the first start then moves to a new port.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from './net';

export const RSYSLOGD = '/usr/sbin/rsyslogd';

export interface Rsyslog {
  port: number;
  /** Where the received messages are written. */
  out: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Every message received so far. */
  messages(): string[];
}

// Prepares a collector in `dir` (not started). `tls` gives the server certificate, key and CA (PEM files).
export async function rsyslog(dir: string, tls?: { ca: string; cert: string; key: string }): Promise<Rsyslog> {
  mkdirSync(path.join(dir, 'work'), { recursive: true });
  let port = await freePort();
  const out = path.join(dir, 'received.log');
  const conf = path.join(dir, 'rsyslog.conf');
  const pidFile = path.join(dir, 'rsyslog.pid');
  const tlsGlobal = tls
    ? ` defaultNetstreamDriver="gtls" defaultNetstreamDriverCAFile="${tls.ca}" defaultNetstreamDriverCertFile="${tls.cert}" defaultNetstreamDriverKeyFile="${tls.key}"`
    : '';
  const tlsModule = tls ? ' StreamDriver.Name="gtls" StreamDriver.Mode="1" StreamDriver.AuthMode="anon"' : '';
  // Writes the configuration for the current port.
  const configure = (): void =>
    writeFileSync(
      conf,
      [
        `global(workDirectory="${path.join(dir, 'work')}" maxMessageSize="256k"${tlsGlobal})`,
        `module(load="imtcp" MaxSessions="500"${tlsModule})`,
        'template(name="raw" type="string" string="%rawmsg%\\n")',
        'ruleset(name="collect") {',
        `  action(type="omfile" file="${out}" template="raw" flushOnTXEnd="on" asyncWriting="off")`,
        '}',
        `input(type="imtcp" port="${port}" address="127.0.0.1" ruleset="collect")`,
        '',
      ].join('\n'),
    );
  configure();
  let child: ChildProcess | null = null;
  let started = false;

  // Starts rsyslogd once on the current port; false when another process holds that port.
  async function startOnce(): Promise<boolean> {
    const proc = spawn(RSYSLOGD, ['-n', '-f', conf, '-i', pidFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child = proc;
    const deadline = Date.now() + 15_000;
    // Listening once a connection is accepted, on a socket of rsyslogd's own.
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`rsyslogd exited ${proc.exitCode}: ${stderr}`);
      const ok = await new Promise<boolean>((resolve) => {
        const s = net.connect({ host: '127.0.0.1', port }, () => {
          s.destroy();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      });
      if (ok) {
        const owner = listenerPid(port);
        if (owner === undefined || owner === proc.pid) return true;
        await stopProcess(proc);
        return false;
      }
      if (Date.now() > deadline) throw new Error(`rsyslogd did not listen on ${port}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  return {
    get port() {
      return port;
    },
    out,
    async start() {
      for (let attempt = 0; ; attempt++) {
        if (await startOnce()) break;
        // Another process took the port: a first start moves to a new one (a restart must keep its port).
        if (started || attempt >= 3) throw new Error(`port ${port} is held by another process than rsyslogd`);
        port = await freePort();
        configure();
      }
      started = true;
    },
    async stop() {
      const proc = child;
      child = null;
      if (proc) await stopProcess(proc);
    },
    messages() {
      if (!existsSync(out)) return [];
      return readFileSync(out, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
    },
  };
}

// Ends a process with SIGTERM and waits for it.
async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.on('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

// The pid of the process listening on 127.0.0.1:`port` (ss), or undefined when that cannot be told.
function listenerPid(port: number): number | undefined {
  try {
    const line = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8', timeout: 5000 });
    const pid = /pid=(\d+)/.exec(line)?.[1];
    return pid === undefined ? undefined : Number(pid);
  } catch {
    return undefined;
  }
}
