// Load process for bench/sync: N simulated agents holding long polls; reports delivery latency after a release.
// Protocol (JSON lines): stdin {url, creds:[...], etag|null, path} → stdout {event:'held'}; stdin {t0} → stdout {event:'done', ...}.
import http from 'node:http';
import readline from 'node:readline';

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const now = () => performance.timeOrigin + performance.now();
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');

// One GET; resolves with status, etag and arrival time.
function get(url, headers) {
  return new Promise((resolve) => {
    const req = http.request(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, etag: res.headers.etag, at: now() }));
    });
    req.on('error', (err) => resolve({ status: 0, error: err.message, at: now() }));
    req.end();
  });
}

const rl = readline.createInterface({ input: process.stdin });
let config = null;
let t0 = null;
let results = null;
let finished = 0;

function maybeDone() {
  if (t0 === null || results === null || finished < results.length) return;
  const ok = results
    .filter((r) => r.status === 200)
    .map((r) => r.at - t0)
    .sort((a, b) => a - b);
  const pct = (p) => ok[Math.min(ok.length - 1, Math.floor((p / 100) * ok.length))];
  out({
    event: 'done',
    n: results.length,
    ok: ok.length,
    p50: pct(50),
    p99: pct(99),
    max: ok[ok.length - 1],
    errors: results.length - ok.length,
    statuses: [...new Set(results.map((r) => r.status))],
  });
}

// Each line is one message; a failure ends the process with the error (the bench then reports it).
rl.on(
  'line',
  (line) =>
    void onLine(line).catch((err) => {
      console.error(err);
      process.exit(1);
    }),
);

async function onLine(line) {
  const msg = JSON.parse(line);
  if (msg.url) {
    config = msg;
    const target = config.url + config.path;
    // Each agent learns its current ETag first (in batches), then holds a long poll with it.
    const etags = [];
    for (let i = 0; i < config.creds.length; i += 200) {
      const batch = config.creds.slice(i, i + 200);
      const got = await Promise.all(
        batch.map((c) => (config.etag ? { etag: config.etag } : get(target, { authorization: `Bearer ${c}` }))),
      );
      etags.push(...got.map((g) => g.etag));
    }
    results = new Array(config.creds.length);
    // Connections are opened in steps so the listen backlog never overflows (SYN retries would distort timings).
    for (let i = 0; i < config.creds.length; i++) {
      const c = config.creds[i];
      void get(target, { authorization: `Bearer ${c}`, 'if-none-match': etags[i], prefer: 'wait=60' }).then((r) => {
        results[i] = r;
        finished++;
        maybeDone();
      });
      if (i % 200 === 199) await new Promise((r) => setTimeout(r, 30));
    }
    setTimeout(() => out({ event: 'held', n: config.creds.length }), 2000);
  } else if (msg.t0) {
    t0 = msg.t0;
    maybeDone();
  }
}
