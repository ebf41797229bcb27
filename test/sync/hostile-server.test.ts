// Real agent processes against a hostile server: endless, huge and slow bodies stay bounded in memory and time; a
// refused bundle and an outage are retried with backoff (no request storm, no listener leak, one log line).
import { promises as fs } from 'node:fs';
import type http from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AgentProcess, peakRssKb, spawnAgent, stopAgent, visibleLayer, waitFor } from '../support/agent';
import {
  FakeBundleServer,
  manifestObject,
  SigningKeyPair,
  signManifest,
  fakeEnrolledAgent,
} from '../support/fake-bundle-server';

const MANAGED = '/opt/hw-hostile';
const key = new SigningKeyPair('ed25519:trusted');
const untrusted = new SigningKeyPair('ed25519:someone-else');
/** The memory the issue allows an agent, whatever the server sends. */
const RSS_LIMIT_KB = 150 * 1024;

let server: FakeBundleServer;
let tmp: string;
let root: string;
let stateDir: string;
let agent: AgentProcess | null = null;
/** Peak RSS per scenario, printed at the end for the closing note. */
const figures: Record<string, number | null> = {};

const toml = `[hooks]\nmanaged_dir = "${MANAGED}"\n`;

// Writes an endless (or `total`-byte) JSON-looking body as fast as the socket drains; stops when the peer goes.
function pour(res: http.ServerResponse, total = Infinity, headers: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let sent = 0;
  let closed = false;
  res.on('close', () => (closed = true));
  res.write('{"manifest":"');
  const more = (): void => {
    while (!closed && sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    if (!closed) res.end('"}');
  };
  more();
}

beforeAll(async () => {
  server = new FakeBundleServer();
  await server.start();
});
afterAll(async () => {
  await server.stop();
  console.log('agent peak RSS (KiB) by hostile response:', JSON.stringify(figures));
});
beforeEach(async () => {
  ({ tmp, root, stateDir } = await fakeEnrolledAgent(server, key, 'hw-hostile-'));
  server.statuses.length = 0;
  server.requests.length = 0;
  server.handler = null;
  server.bundle = null;
});
afterEach(async () => {
  if (agent) await stopAgent(agent);
  agent = null;
  await fs.rm(tmp, { recursive: true, force: true });
});

// Starts the daemon with extra options.
function daemon(...extra: string[]): AgentProcess {
  agent = spawnAgent(['run', '--state-dir', stateDir, '--root', root, '--poll-wait', '1', ...extra]);
  return agent;
}

// Runs a hostile bundle answer against a daemon until it logs `error`; returns the agent's peak RSS in KiB.
async function peakAgainst(name: string, handler: (res: http.ServerResponse) => void, error: RegExp) {
  server.handler = (req, res) => {
    if (req.url !== '/v1/agent/bundle') return false;
    handler(res);
    return true;
  };
  const p = daemon('--max-backoff', '600000');
  await waitFor(() => error.test(p.stderr()), 60_000, `the agent to refuse the ${name} response`);
  const kb = await peakRssKb(p.child.pid!);
  figures[name] = kb;
  expect(p.child.exitCode).toBeNull(); // still running: a refused download is an error, not a crash
  return kb;
}

describe('bounded downloads', () => {
  it('cuts an endless bundle response off at the size limit and stays under 150 MB', async () => {
    const kb = await peakAgainst('endless', (res) => pour(res), /exceeds the limit of 8388608 bytes/);
    if (kb !== null) expect(kb).toBeLessThan(RSS_LIMIT_KB);
  });

  it('cuts a 200 MB chunked bundle response off while streaming and stays under 150 MB', async () => {
    const kb = await peakAgainst('200MB', (res) => pour(res, 200 * 1024 * 1024), /exceeds the limit/);
    if (kb !== null) expect(kb).toBeLessThan(RSS_LIMIT_KB);
  });

  it('refuses a declared 200 MB body before reading it', async () => {
    const kb = await peakAgainst(
      '200MB-declared',
      (res) => pour(res, 200 * 1024 * 1024, { 'content-length': String(200 * 1024 * 1024 + 15) }),
      /response of 209715215 bytes exceeds the limit/,
    );
    if (kb !== null) expect(kb).toBeLessThan(RSS_LIMIT_KB);
  });

  it('counts the decoded bytes of a compressed body (a gzip bomb is cut off too)', async () => {
    const bomb = gzipSync(Buffer.alloc(512 * 1024 * 1024, 0x20), { level: 9 }); // 512 MiB of spaces, ~0.5 MB gzip
    const kb = await peakAgainst(
      'gzip-bomb',
      (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb),
      /exceeds the limit of 8388608 bytes/,
    );
    if (kb !== null) expect(kb).toBeLessThan(RSS_LIMIT_KB);
  });

  it('honours a configured --max-response-bytes', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml, [{ path: 'big.sh', content: 'x'.repeat(8000) }]));
    const p = daemon('--max-response-bytes', '4096');
    await waitFor(() => /exceeds the limit of 4096 bytes/.test(p.stderr()), 20_000, 'the size refusal');
    expect(await visibleLayer(root, MANAGED)).toBeNull();
  });

  it('gives up on a body that trickles in slower than the body deadline, and closes the connection', async () => {
    let closed = 0;
    server.handler = (req, res) => {
      if (req.url !== '/v1/agent/bundle') return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"manifest":"');
      const t = setInterval(() => res.write('a'), 200);
      res.on('close', () => {
        clearInterval(t);
        closed++;
      });
      return true;
    };
    const p = daemon('--body-timeout', '1500', '--max-backoff', '600000');
    await waitFor(() => /not complete within 1500 ms/.test(p.stderr()), 30_000, 'the body deadline');
    await waitFor(() => closed >= 1, 10_000, 'the agent to close the slow connection');
  });

  it('still applies a normal bundle with the limits in place', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml, [{ path: 'ok.sh', content: '#!/bin/sh\necho ok\n' }]));
    daemon();
    await waitFor(async () => (await visibleLayer(root, MANAGED))?.['ok.sh'], 20_000, 'the bundle to apply');
  });
});

describe('retries back off', () => {
  it('backs off on a refused bundle the server keeps sending (ignoring If-None-Match), reporting it once', async () => {
    const bad = signManifest(untrusted, manifestObject(1, toml, []));
    server.handler = (req, res) => {
      if (req.url !== '/v1/agent/bundle') return false;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(bad));
      return true;
    };
    const p = daemon();
    await waitFor(() => server.count('GET /v1/agent/bundle') >= 1, 20_000, 'the first bundle request');
    const first = Date.now();
    await waitFor(() => Date.now() - first >= 5000, 10_000, 'five seconds');
    // Backoff 0.25–0.5 s, doubling: at most 5 requests in 5 s (the unpaced loop made ~370 in that time).
    expect(server.count('GET /v1/agent/bundle')).toBeLessThanOrEqual(6);
    expect(server.count('POST /v1/agent/status')).toBe(1);
    expect(p.stderr().match(/"msg":"refused bundle"/g)?.length).toBe(1);
    expect(server.statuses[0].state).toBe('failed');
  });

  it('backs off on a server that answers 304 at once instead of holding the long poll', async () => {
    server.handler = (req, res) => {
      if (req.url !== '/v1/agent/bundle') return false;
      res.writeHead(304, { etag: '"x"' }).end();
      return true;
    };
    daemon();
    await waitFor(() => server.count('GET /v1/agent/bundle') >= 1, 20_000, 'the first bundle request');
    const first = Date.now();
    await waitFor(() => Date.now() - first >= 5000, 10_000, 'five seconds');
    expect(server.count('GET /v1/agent/bundle')).toBeLessThanOrEqual(6);
  });

  it('keeps no abort listener per retry during an outage (no MaxListenersExceededWarning)', async () => {
    server.handler = (req, res) => {
      if (req.url !== '/v1/agent/bundle') return false;
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"unavailable","message":"x"}}');
      return true;
    };
    const p = daemon('--max-backoff', '100');
    await waitFor(() => server.count('GET /v1/agent/bundle') >= 30, 30_000, '30 retries');
    expect(p.stderr()).not.toContain('MaxListenersExceededWarning');
    expect(p.child.exitCode).toBeNull();
  });

  it('cuts a huge refusal reason to what the API accepts in the status report', async () => {
    // The refusal names the key id: a 5,000-character one made a reason the API refused with 400.
    const huge = { ...signManifest(key, manifestObject(1, toml, [])), keyId: 'k'.repeat(5000) };
    server.bundle = huge;
    daemon();
    await waitFor(() => server.statuses.length >= 1, 20_000, 'the failure report');
    for (const e of server.statuses[0].errors as string[]) expect(e.length).toBeLessThanOrEqual(2000);
    expect(server.statuses[0].errors.length).toBeLessThanOrEqual(50);
  });
});
