// Load process of bench/scale: simulated agents speaking the signed agent protocol (hook-core's request signatures):
// each opens a session with its Ed25519 endpoint key, learns its bundle's ETag, then holds a signed long poll.
// Protocol (JSON lines): stdin {url, agents:[{keyId, pem}], sources:[addr], keepAlive, sessionTtlMs} → stdout
// {event:'held', n, failed};
// stdin {t0} → stdout {event:'done', latencies:[ms…], errors, statuses}.
import { createPrivateKey } from 'node:crypto';
import http from 'node:http';
import readline from 'node:readline';
import { newSessionEphemeral, openSessionKey, signRequest } from '@hookwarden/hook-core';

const now = () => performance.timeOrigin + performance.now();
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const BUNDLE = '/v1/agent/bundle';

// One request from `localAddress` (several, so tens of thousands of connections fit the ephemeral port range), over the
// agent's kept-alive connection (`agent`, as hookwarden-agent's transport does) or a connection of its own (`agent`
// false); resolves with status, headers, body text and arrival time; never rejects.
function request(base, method, path, headers, body, localAddress, agent) {
  return new Promise((resolve) => {
    const flight = { start: now(), connected: 0 };
    inflight.add(flight);
    const settle = (r) => {
      inflight.delete(flight);
      trace(flight, r);
      resolve(r);
    };
    const req = http.request(base + path, { method, headers, localAddress, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        settle({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString(), at: now() }),
      );
    });
    req.on('socket', (s) => {
      if (s.connecting) s.once('connect', () => (flight.connected = now()));
      else flight.connected = now();
    });
    req.setTimeout(120_000, () => req.destroy(new Error('timeout')));
    req.on('error', (err) => settle({ status: 0, error: err.message, at: now() }));
    req.end(body);
  });
}

// Requests in flight, and what ended since the last report (status → count; quick ones answered in under 5 s).
const inflight = new Set();
let ended = new Map();
let slowConnects = 0;
const samples = new Set();

// Counts one ended request for the periodic report.
function trace(flight, r) {
  const took = r.at - flight.start;
  const key = `${r.status}${r.error ? `(${r.error})` : ''}${took < 5000 ? ' quick' : ''}`;
  ended.set(key, (ended.get(key) ?? 0) + 1);
  if (r.status !== 200 && r.status !== 304 && !samples.has(r.status)) {
    samples.add(r.status);
    console.error(`[load ${process.pid}] first ${r.status}: ${r.error ?? r.body?.slice(0, 200)}`);
  }
  if (flight.connected && flight.connected - flight.start > 1000) slowConnects++;
}

// Every 10 s on stderr: requests in flight by age (a held poll is never older than 60 s) and by whether TCP connected,
// and the ends since the last report.
setInterval(() => {
  if (inflight.size === 0 && ended.size === 0) return;
  const t = now();
  let old = 0;
  let unconnected = 0;
  for (const f of inflight) {
    if (t - f.start > 62_000) old++;
    if (!f.connected) unconnected++;
  }
  const ends = [...ended]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  console.error(
    `[load ${process.pid}] in flight ${inflight.size} (older than 62 s ${old}, TCP not connected ${unconnected}); connects over 1 s ${slowConnects}; ended: ${ends}`,
  );
  ended = new Map();
  slowConnects = 0;
}, 10_000).unref();

// Opens the agent's session; returns its id and key (null when refused).
async function openSession(base, a, src) {
  a.sessionAt = Date.now();
  const eph = newSessionEphemeral();
  const body = JSON.stringify({ ephemeralKey: eph.publicKey });
  const headers = {
    'content-type': 'application/json',
    ...signRequest(
      { method: 'POST', target: '/v1/agent/session', body },
      { alg: 'ed25519', keyid: a.keyId, privateKey: a.key },
    ),
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    const res = await request(base, 'POST', '/v1/agent/session', headers, body, src, a.agent);
    if (res.status !== 200 && !warned) {
      warned = true;
      console.error(`POST /v1/agent/session: ${res.status} ${res.error ?? res.body}`);
    }
    if (res.status === 200) {
      const s = JSON.parse(res.body);
      return { id: s.sessionId, key: openSessionKey(s.sealedKey, eph, s.sessionId) };
    }
    await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
    Object.assign(
      headers,
      signRequest(
        { method: 'POST', target: '/v1/agent/session', body },
        { alg: 'ed25519', keyid: a.keyId, privateKey: a.key },
      ),
    );
  }
  return null;
}

// A signed GET of the bundle with the session.
function getBundle(base, a, extra, src) {
  const sig = signRequest(
    { method: 'GET', target: BUNDLE },
    { alg: 'hmac-sha256', keyid: a.session.id, secret: a.session.key },
  );
  return request(base, 'GET', BUNDLE, { ...sig, ...extra }, undefined, src, a.agent);
}

let warned = false;
let t0 = null;
let results = null;
let finished = 0;

// Reports once the release was made and every held poll answered.
function maybeDone() {
  if (t0 === null || results === null || finished < results.length) return;
  const ok = results.filter((r) => r && r.status === 200).map((r) => r.at - t0);
  out({
    event: 'done',
    latencies: ok,
    errors: results.length - ok.length,
    statuses: [...new Set(results.map((r) => r?.status))],
  });
}

// Runs `fn` over `items` with at most `width` at once.
async function pooled(items, width, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

async function onLine(line) {
  const msg = JSON.parse(line);
  if (msg.url) {
    const agents = msg.agents.map((a) => ({
      keyId: a.keyId,
      key: createPrivateKey(a.pem),
      session: null,
      sessionAt: 0,
      etag: null,
      agent: msg.keepAlive ? new http.Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 }) : false,
    }));
    const src = (i) => msg.sources[i % msg.sources.length];
    let failed = 0;
    results = new Array(agents.length);
    // Like the agent: poll again when a poll ends unchanged (or fails, after a second), until the release arrives;
    // renew the session a minute before it expires, or when it was refused as expired.
    const poll = async (a, i) => {
      for (;;) {
        if (Date.now() - a.sessionAt > msg.sessionTtlMs - 60_000)
          a.session = (await openSession(msg.url, a, src(i))) ?? a.session;
        const headers = { prefer: 'wait=60', ...(a.etag ? { 'if-none-match': a.etag } : {}) };
        const r = await getBundle(msg.url, a, headers, src(i));
        if (r.status === 200 && t0 !== null) return r;
        if (r.status === 200) a.etag = r.headers.etag;
        else if (r.status === 401 && r.body?.includes('session_expired')) a.sessionAt = 0;
        else if (r.status !== 304 && r.status !== 204) await new Promise((res) => setTimeout(res, 1000));
        if (t0 !== null && r.at > t0 + 120_000) return r;
      }
    };
    // Starts agent i's polling (or records it as failed), its result kept for the report.
    const start = (a, i) =>
      void (a.session ? poll(a, i) : Promise.resolve({ status: 0 })).then((r) => {
        results[i] = r;
        finished++;
        maybeDone();
      });
    // Kept-alive connections: each agent starts polling once it has its session and bundle, as hookwarden-agent does
    // (its connection stays open from the session on). New connections per request: every agent starts once all have
    // sessions, in steps so listen backlogs do not overflow.
    await pooled(agents, 64, async (a, i) => {
      a.session = await openSession(msg.url, a, src(i));
      if (!a.session) failed++;
      else {
        const first = await getBundle(msg.url, a, {}, src(i));
        a.etag = first.headers?.etag ?? null;
        if (first.status !== 200) failed++;
      }
      if (msg.keepAlive) start(a, i);
    });
    for (let i = 0; !msg.keepAlive && i < agents.length; i++) {
      start(agents[i], i);
      if (i % 200 === 199) await new Promise((r) => setTimeout(r, 20));
    }
    setTimeout(() => out({ event: 'held', n: agents.length, failed }), 2000);
  } else if (msg.t0) {
    t0 = msg.t0;
    maybeDone();
  }
}

readline.createInterface({ input: process.stdin }).on(
  'line',
  (line) =>
    void onLine(line).catch((err) => {
      console.error(err);
      process.exit(1);
    }),
);
