// A tiny stand-in for the API's agent routes, serving whatever (possibly tampered) bundle a test sets.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { type BundleLayer, bundleSigningText, sealSessionKey, SHADOW_LAYER_HEADER } from '@hookwarden/hook-core';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Credentials, writeCredentials } from '../../apps/agent-sync/src/state/credentials';
import { newEndpointKey, storeEndpointKey } from '../../apps/agent-sync/src/state/endpoint-key';

export interface FakeFile {
  path: string;
  content: string;
  mode?: number;
}

export interface FakeBundle {
  manifest: string;
  signature: string;
  keyId: string;
}

const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

// Canonical JSON like the server's.
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

export class SigningKeyPair {
  readonly kid: string;
  readonly publicKeyPem: string;
  private readonly privateKey: KeyObject;

  constructor(kid = 'ed25519:test') {
    const pair = generateKeyPairSync('ed25519');
    this.kid = kid;
    this.privateKey = pair.privateKey;
    this.publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  // Signs text (base64 signature).
  sign(text: string): string {
    return sign(null, Buffer.from(text), this.privateKey).toString('base64');
  }
}

// The manifest object of a bundle (tests may tamper with it before signing).
export function manifestObject(revision: number, toml: string, files: FakeFile[]): any {
  return {
    format: 1,
    group: { id: 'g', name: 'group' },
    policyId: 'p',
    policyVersion: revision,
    policyVersionId: 'pv',
    revision,
    issuedAt: new Date().toISOString(),
    requirements: { content: toml, sha256: sha(toml), size: Buffer.byteLength(toml) },
    files: files.map((f) => ({
      path: f.path,
      sha256: sha(f.content),
      size: Buffer.byteLength(f.content),
      mode: f.mode ?? 0o755,
      content: Buffer.from(f.content).toString('base64'),
    })),
  };
}

// Serializes and signs a manifest object (as a managed bundle, or in the shadow signing context).
export function signManifest(key: SigningKeyPair, manifest: unknown, layer: BundleLayer = 'managed'): FakeBundle {
  const text = canonical(manifest);
  return { manifest: text, signature: key.sign(bundleSigningText(text, layer)), keyId: key.kid };
}

// A shadow manifest object of release `releaseId` (tests may tamper with it before signing).
export function shadowManifestObject(revision: number, toml: string, files: FakeFile[], releaseId: string): any {
  return { ...manifestObject(revision, toml, files), shadow: { releaseId } };
}

/** Answers a request itself (hostile behaviours: endless or slow bodies, ignoring If-None-Match); false: default. */
export type FakeHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => boolean;

export class FakeBundleServer {
  bundle: FakeBundle | null = null;
  /** Served at GET /v1/agent/shadow-bundle: a bundle (200/304), null (204: no shadow layer), undefined (404: an API
   *  older than shadow releases). */
  shadowBundle: FakeBundle | null | undefined = undefined;
  readonly statuses: any[] = [];
  /** Requests that carried a signature (agents sign every request with their session). */
  signed = 0;
  /** Requests seen, as "METHOD /path", in order. */
  readonly requests: string[] = [];
  /** Overrides any route (return true when it answered). */
  handler: FakeHandler | null = null;
  /** When true, GET /v1/agent/bundle answers name the shadow layer (Hookwarden-Shadow: its ETag, or `none`), as the
   *  API does for agents that send the header (one poll per agent). */
  announceShadow = false;
  /** The Prefer header of each GET /v1/agent/shadow-bundle, in order (undefined: none sent). */
  readonly shadowPrefers: Array<string | undefined> = [];
  /** Served at GET /v1/agent/keys and GET /v1/agent/assignment when set. */
  keyList: unknown = null;
  assignment: unknown = null;
  /** When set, every request nothing above answered is forwarded there (a hostile proxy in front of the real API). */
  upstream: string | null = null;
  private server!: http.Server;
  url = '';

  // Number of requests seen for "METHOD /path".
  count(what: string): number {
    return this.requests.filter((r) => r === what).length;
  }

  // Listens on a loopback ephemeral port.
  async start(port = 0): Promise<void> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        this.requests.push(`${req.method} ${req.url}`);
        if (typeof req.headers['signature-input'] === 'string') this.signed++;
        // Sessions are answered before any hostile handler (the agent signs every request with one).
        if (req.url === '/v1/agent/session' && req.method === 'POST' && !this.upstream) {
          const sessionId = `hs1.fake.${randomBytes(8).toString('hex')}`;
          let sealedKey;
          try {
            sealedKey = sealSessionKey(randomBytes(32), JSON.parse(body).ephemeralKey, sessionId);
          } catch {
            return void res.writeHead(400).end();
          }
          const expiresAt = new Date(Date.now() + 600_000).toISOString();
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ sessionId, expiresAt, sealedKey }));
          return;
        }
        if (this.handler?.(req, res, body)) return;
        if (req.url === '/v1/agent/keys' && this.keyList) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.keyList));
          return;
        }
        if (req.url === '/v1/agent/assignment' && this.assignment) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.assignment));
          return;
        }
        if (this.upstream) return void this.forward(req, res, body);
        if (req.url === '/v1/agent/status' && req.method === 'POST') {
          this.statuses.push(JSON.parse(body));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"accepted":true}');
          return;
        }
        const served =
          req.url === '/v1/agent/bundle'
            ? this.bundle
            : req.url === '/v1/agent/shadow-bundle'
              ? this.shadowBundle
              : undefined;
        if (req.url === '/v1/agent/shadow-bundle') this.shadowPrefers.push(req.headers.prefer?.toString());
        const named: Record<string, string> =
          this.announceShadow && req.url === '/v1/agent/bundle'
            ? { [SHADOW_LAYER_HEADER]: this.shadowBundle ? `"sha256:${sha(this.shadowBundle.manifest)}"` : 'none' }
            : {};
        if (served !== undefined) {
          if (!served) return void res.writeHead(204, named).end();
          const etag = `"sha256:${sha(served.manifest)}"`;
          if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag, ...named }).end();
          res.writeHead(200, { 'content-type': 'application/json', etag, ...named }).end(JSON.stringify(served));
          return;
        }
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  // Forwards a request to the upstream API and relays its answer.
  private async forward(req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> {
    const headers: Record<string, string> = {};
    for (const name of [
      'authorization',
      'content-type',
      'if-none-match',
      'prefer',
      'user-agent',
      'content-digest',
      'signature-input',
      'signature',
    ]) {
      const v = req.headers[name];
      if (typeof v === 'string') headers[name] = v;
    }
    try {
      const r = await fetch(this.upstream + req.url!, {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
      });
      const out: Record<string, string> = {};
      for (const name of ['content-type', 'etag', 'retry-after']) {
        const v = r.headers.get(name);
        if (v) out[name] = v;
      }
      res.writeHead(r.status, out).end(Buffer.from(await r.arrayBuffer()));
    } catch {
      res.writeHead(502).end();
    }
  }

  // Stops listening (connections are dropped).
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

// A temp agent enrolled with the fake server (endpoint e1 of group g) and trusting `key`: a fresh temp directory with
// an empty `root` and a `stateDir` holding its credentials and endpoint key; `extra` adds credential fields (e.g. keyListSequence).
export async function fakeEnrolledAgent(
  server: FakeBundleServer,
  key: SigningKeyPair,
  prefix: string,
  extra: Partial<Credentials> = {},
): Promise<{ tmp: string; root: string; stateDir: string }> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const root = path.join(tmp, 'root');
  const stateDir = path.join(tmp, 'state');
  await fs.mkdir(root);
  // The agent's own endpoint key (it signs with sessions the fake server opens).
  await storeEndpointKey(stateDir, newEndpointKey());
  await writeCredentials(stateDir, {
    serverUrl: server.url,
    endpointId: 'e1',
    groupId: 'g',
    machineId: 'machine-fake-1',
    publicKeys: [{ kid: key.kid, publicKeyPem: key.publicKeyPem }],
    enrolledAt: new Date().toISOString(),
    ...extra,
  });
  return { tmp, root, stateDir };
}
