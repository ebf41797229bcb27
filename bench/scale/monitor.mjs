// Where the polls of bench/scale are, every few seconds, layer by layer: the load processes (polls in flight), each
// HAProxy process (its stats socket: client connections, server connections per instance, queue, errors, retries),
// the kernel (listen queues, TCP states by port), each API instance (polls held, CPU), and HAProxy's abnormal request
// terminations (its error log). One line per layer per sample, on stderr.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';

// One command on an HAProxy stats socket; resolves with its output ('' when the socket does not answer).
export function haproxyCommand(socketPath, command) {
  return new Promise((resolve) => {
    const chunks = [];
    const s = net.connect(socketPath);
    s.setTimeout(3000, () => s.destroy());
    s.on('connect', () => s.write(`${command}\n`));
    s.on('data', (c) => chunks.push(c));
    s.on('close', () => resolve(Buffer.concat(chunks).toString()));
    s.on('error', () => undefined);
  });
}

// `show info` as a map.
async function info(socketPath) {
  const out = await haproxyCommand(socketPath, 'show info');
  return Object.fromEntries(
    out
      .split('\n')
      .map((l) => l.split(': '))
      .filter((kv) => kv.length === 2),
  );
}

// `show stat` as rows keyed by "proxy/server".
async function stat(socketPath) {
  const out = await haproxyCommand(socketPath, 'show stat');
  const lines = out.split('\n').filter(Boolean);
  if (!lines[0]?.startsWith('# ')) return {};
  const cols = lines[0].slice(2).split(',');
  const rows = {};
  for (const l of lines.slice(1)) {
    const v = l.split(',');
    const row = Object.fromEntries(cols.map((c, i) => [c, v[i]]));
    rows[`${row.pxname}/${row.svname}`] = row;
  }
  return rows;
}

// CPU seconds (user + system) a process has used so far.
function cpuSeconds(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

// The kernel's TCP counters of interest (/proc/net/netstat, /proc/net/snmp).
function tcpCounters() {
  const out = {};
  for (const file of ['/proc/net/netstat', '/proc/net/snmp']) {
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    for (let i = 0; i + 1 < lines.length; i += 2) {
      const keys = lines[i].split(/\s+/);
      const vals = lines[i + 1].split(/\s+/);
      keys.slice(1).forEach((k, j) => (out[`${keys[0]}${k}`] = Number(vals[j + 1])));
    }
  }
  const pick = [
    'TcpExt:ListenOverflows',
    'TcpExt:ListenDrops',
    'TcpExt:TCPTimeWaitOverflow',
    'TcpExt:TCPReqQFullDrop',
    'TcpExt:TCPReqQFullDoCookies',
    'TcpExt:SyncookiesSent',
    'TcpExt:TCPAbortOnClose',
    'TcpExt:TCPAbortOnData',
    'Tcp:ActiveOpens',
    'Tcp:PassiveOpens',
    'Tcp:AttemptFails',
    'Tcp:EstabResets',
    'Tcp:RetransSegs',
  ];
  return Object.fromEntries(pick.map((k) => [k.split(':')[1], out[k] ?? 0]));
}

// TCP sockets by state for the proxy port and the instance ports (local or remote side), and listen queues.
function sockets(proxyPort, apiPorts) {
  let text = '';
  try {
    text = execFileSync('ss', ['-tanH'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  } catch {
    return 'ss failed';
  }
  const ports = [proxyPort, ...apiPorts];
  const byPort = new Map(ports.map((p) => [p, {}]));
  const listen = {};
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 5) continue;
    const [state, recvQ, sendQ, local, peer] = f;
    const lp = Number(local.slice(local.lastIndexOf(':') + 1));
    const pp = Number(peer.slice(peer.lastIndexOf(':') + 1));
    if (state === 'LISTEN') {
      if (byPort.has(lp)) listen[lp] = `${listen[lp] ? `${listen[lp]}+` : ''}${recvQ}/${sendQ}`;
      continue;
    }
    // Connections to a port are counted on the side that dialled it (the peer is the port): client, or HAProxy.
    const side = byPort.has(pp) ? `${pp}<` : byPort.has(lp) ? `${lp}>` : null;
    if (!side) continue;
    const port = byPort.has(pp) ? pp : lp;
    const counts = byPort.get(port);
    const key = `${side.endsWith('<') ? 'out' : 'in'}:${state}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  const fmt = (o) =>
    Object.entries(o)
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  return `listen(accept-queue/backlog) ${ports.map((p) => `${p}:${listen[p] ?? '-'}`).join(' ')}; ${ports
    .map((p) => `[${p}] ${fmt(byPort.get(p))}`)
    .join('; ')}`;
}

// Starts sampling every `everyMs`; returns stop(). `held(url)` reads an instance's held polls.
export function startMonitor({
  log,
  everyMs = 10_000,
  proxyPort,
  apiPorts,
  apis,
  proxies,
  sockets: statSockets,
  held,
}) {
  let prevCpu = new Map();
  let prevTcp = tcpCounters();
  let prevAt = Date.now();
  const prevStat = new Map();
  const terminations = new Map();
  let errorLines = 0;
  let otherLines = 0;
  let otherRequests = 0;
  // HAProxy's error log: one line per abnormal request; counted by termination state (e.g. CD, sQ, cR, SH).
  for (const p of proxies) {
    p.child.stdout.on('data', (b) => {
      for (const line of b.toString().split('\n')) {
        if (!line.trim()) continue;
        const m = / ([-a-zA-Z]{4}) \d+\/\d+\/\d+\/\d+\/\+?\d+ \d+\/\d+ /.exec(line);
        if (!m) {
          otherLines++;
          if (otherLines <= 20 || otherLines % 1000 === 0) log(`haproxy says: ${line.trim()}`);
          continue;
        }
        errorLines++;
        terminations.set(m[1], (terminations.get(m[1]) ?? 0) + 1);
        const other = !line.includes('GET /v1/agent/bundle');
        if (errorLines <= 20 || errorLines % 5000 === 0 || (other && (otherRequests += 1) <= 200)) {
          log(`haproxy error log: ${line.trim()}`);
        }
      }
    });
  }
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const at = Date.now();
      const secs = (at - prevAt) / 1000;
      const cpu = (name, pid) => {
        const c = cpuSeconds(pid);
        const was = prevCpu.get(pid);
        prevCpu.set(pid, c);
        return `${name} ${was === undefined ? '?' : Math.round(((c - was) / secs) * 100)}%`;
      };
      const heldNow = await Promise.all(apiPorts.map((p) => held(`http://127.0.0.1:${p}`).catch(() => NaN)));
      log(
        `instances: held ${heldNow.join('/')} (sum ${heldNow.reduce((a, b) => a + b, 0)}); cpu ${apis
          .map((a, i) => cpu(`api${i}`, a.child.pid))
          .join(' ')}; ${proxies.map((p, i) => cpu(`hap${i}`, p.child.pid)).join(' ')}; load avg ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
      );
      for (let i = 0; i < statSockets.length; i++) {
        const [inf, st] = await Promise.all([info(statSockets[i]), stat(statSockets[i])]);
        const fe = st['api/FRONTEND'] ?? {};
        const be = st['instances/BACKEND'] ?? {};
        const was = prevStat.get(i) ?? {};
        const d = (row, key, col) => {
          const v = Number(row[col] ?? 0);
          const k = `${key}.${col}`;
          const before = was[k];
          was[k] = v;
          return before === undefined ? v : v - before;
        };
        const servers = apiPorts
          .map((_, k) => {
            const s = st[`instances/api${k}`] ?? {};
            return `api${k} ${s.status} scur ${s.scur} qcur ${s.qcur} idle ${s.idle_conn_cur ?? '?'} +econ ${d(s, k, 'econ')} +eresp ${d(s, k, 'eresp')} +wretr ${d(s, k, 'wretr')} +wredis ${d(s, k, 'wredis')} +cli_abrt ${d(s, k, 'cli_abrt')} +srv_abrt ${d(s, k, 'srv_abrt')} +connect ${d(s, k, 'connect')} +reuse ${d(s, k, 'reuse')}`;
          })
          .join(' | ');
        log(
          `hap${i}: CurrConns ${inf.CurrConns}/${inf.Maxconn} Maxsock ${inf.Maxsock} Ulimit-n ${inf['Ulimit-n']} ConnRate ${inf.ConnRate} Idle_pct ${inf.Idle_pct}; fe scur ${fe.scur} +conn ${d(fe, 'fe', 'conn_tot')} +req ${d(fe, 'fe', 'req_tot')} +ereq ${d(fe, 'fe', 'ereq')} +dreq ${d(fe, 'fe', 'dreq')} +3xx ${d(fe, 'fe', 'hrsp_3xx')} +2xx ${d(fe, 'fe', 'hrsp_2xx')} +4xx ${d(fe, 'fe', 'hrsp_4xx')} +5xx ${d(fe, 'fe', 'hrsp_5xx')}; be scur ${be.scur} qcur ${be.qcur} +econ ${d(be, 'be', 'econ')} +eresp ${d(be, 'be', 'eresp')}; ${servers}`,
        );
        prevStat.set(i, was);
      }
      const tcp = tcpCounters();
      log(
        `kernel: ${Object.entries(tcp)
          .map(([k, v]) => `${k} +${v - prevTcp[k]}`)
          .join(' ')}`,
      );
      prevTcp = tcp;
      log(`sockets: ${sockets(proxyPort, apiPorts)}`);
      if (terminations.size) {
        log(
          `haproxy abnormal terminations so far: ${[...terminations]
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        );
      }
      prevAt = at;
    } catch (err) {
      log(`monitor: ${err.message}`);
    } finally {
      busy = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), everyMs);
  return () => clearInterval(timer);
}
