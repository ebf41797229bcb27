// Load process of bench/scale: simulated agents speaking the signed agent protocol (hook-core's request signatures):
// each opens a session with its Ed25519 endpoint key, learns its bundle's ETag, then holds a signed long poll.
// Protocol (JSON lines): stdin {url, agents:[{keyId, pem}], sources:[addr]} → stdout {event:'held', n, failed};
// stdin {t0} → stdout {event:'done', latencies:[ms…], errors, statuses}.
import { createPrivateKey } from 'node:crypto';
import http from 'node:http';
import readline from 'node:readline';
import { newSessionEphemeral, openSessionKey, signRequest } from '@hookwarden/hook-core';

const now = () => performance.timeOrigin + performance.now();
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const BUNDLE = '/v1/agent/bundle';

// One request (own connection from `localAddress`, so tens of thousands fit the ephemeral port range); resolves with
// status, headers, body text and arrival time; never rejects.
function request(base, method, path, headers, body, localAddress) {
  return new Promise((resolve) => {
    const req = http.request(base + path, { method, headers, localAddress, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString(), at: now() }),
      );
    });
    req.setTimeout(120_000, () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, error: err.message, at: now() }));
    req.end(body);
  });
}

// Opens the agent's session; returns its id and key (null when refused).
async function openSession(base, a, src) {
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
    const res = await request(base, 'POST', '/v1/agent/session', headers, body, src);
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
  return request(base, 'GET', BUNDLE, { ...sig, ...extra }, undefined, src);
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
    const agents = msg.agents.map((a) => ({ keyId: a.keyId, key: createPrivateKey(a.pem), session: null, etag: null }));
    const src = (i) => msg.sources[i % msg.sources.length];
    let failed = 0;
    await pooled(agents, 64, async (a, i) => {
      a.session = await openSession(msg.url, a, src(i));
      if (!a.session) return void failed++;
      const first = await getBundle(msg.url, a, {}, src(i));
      a.etag = first.headers?.etag ?? null;
      if (first.status !== 200) failed++;
    });
    results = new Array(agents.length);
    // Like the agent: poll again when a poll ends unchanged (or fails, after a second), until the release arrives.
    // Polls are opened in steps so listen backlogs never overflow (SYN retries would distort the timings).
    const poll = async (a, i) => {
      for (;;) {
        const headers = { prefer: 'wait=60', ...(a.etag ? { 'if-none-match': a.etag } : {}) };
        const r = await getBundle(msg.url, a, headers, src(i));
        if (r.status === 200 && t0 !== null) return r;
        if (r.status === 200) a.etag = r.headers.etag;
        else if (r.status !== 304 && r.status !== 204) await new Promise((res) => setTimeout(res, 1000));
        if (t0 !== null && r.at > t0 + 120_000) return r;
      }
    };
    for (let i = 0; i < agents.length; i++) {
      const a = agents[i];
      void (a.session ? poll(a, i) : Promise.resolve({ status: 0 })).then((r) => {
        results[i] = r;
        finished++;
        maybeDone();
      });
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
