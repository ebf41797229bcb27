// Endpoint identity for tests: enroll with a key through the real API, open sessions, and sign requests exactly as
// the agent does (hook-core's request signatures). One helper for every test that talks to agent routes.
import { randomUUID } from 'node:crypto';
import {
  enrollProofPayload,
  newSessionEphemeral,
  openSessionKey,
  reenrollProofPayload,
  secretSha256,
  signEndpointProof,
  signRequest,
} from '@hookwarden/hook-core';
import { type EndpointKey, newEndpointKey } from '../../apps/agent-sync/src/state/endpoint-key';
import type { TestApi } from './api';
import { prismaFor } from './audit-factories';
import type { JsonResponse } from './http';

/** Options of one signed call. */
export interface SignedCallOptions {
  /** JSON (stringified), a string or raw bytes sent as they are. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Sign these bytes instead of the body sent (a changed body). */
  signBody?: string | Uint8Array;
  /** Sign this target instead of the one sent (a changed path). */
  signTarget?: string;
  /** The signature's clock (ms), default now. */
  now?: number;
  /** A fixed nonce (replays). */
  nonce?: string;
  /** Send to another API instance (sessions are valid on every instance). */
  baseUrl?: string;
}

/** An enrolled endpoint with its key, signing its requests with a session. */
export class SignedAgent {
  session: { id: string; key: Buffer } | null = null;

  constructor(
    readonly baseUrl: string,
    readonly endpointId: string,
    readonly groupId: string,
    readonly key: EndpointKey,
  ) {}

  /** The endpoint id (as TestEndpoint names it). */
  get id(): string {
    return this.endpointId;
  }

  // Opens a session (POST /v1/agent/session signed with the endpoint key); returns the raw answer.
  async openSession(opts: { now?: number; nonce?: string } = {}): Promise<JsonResponse<any>> {
    const ephemeral = newSessionEphemeral();
    const body = JSON.stringify({ ephemeralKey: ephemeral.publicKey });
    const headers = signRequest(
      { method: 'POST', target: '/v1/agent/session', body },
      { alg: 'ed25519', keyid: this.key.keyId, privateKey: this.key.privateKey },
      opts.now,
      opts.nonce,
    );
    const res = await send(this.baseUrl, 'POST', '/v1/agent/session', body, {
      ...headers,
      'content-type': 'application/json',
    });
    if (res.status === 200) {
      this.session = { id: res.body.sessionId, key: openSessionKey(res.body.sealedKey, ephemeral, res.body.sessionId) };
    }
    return res;
  }

  // The signature headers of a request (a session is opened first when there is none).
  async sign(method: string, target: string, body: string | Uint8Array | undefined, o: SignedCallOptions = {}) {
    if (!this.session) {
      const r = await this.openSession();
      if (r.status !== 200) throw new Error(`POST /v1/agent/session: ${r.status} ${JSON.stringify(r.body)}`);
    }
    return signRequest(
      { method, target: o.signTarget ?? target, body: o.signBody ?? body },
      { alg: 'hmac-sha256', keyid: this.session!.id, secret: this.session!.key },
      o.now,
      o.nonce,
    );
  }

  // A signed request, JSON answer parsed (like test/support/http.ts call()).
  async call<T = any>(method: string, path: string, o: SignedCallOptions = {}): Promise<JsonResponse<T>> {
    let body: string | Uint8Array | undefined;
    const headers: Record<string, string> = {};
    if (o.body instanceof Uint8Array || typeof o.body === 'string') body = o.body;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    // No session can be opened (revoked, pending…): that refusal is the answer.
    if (!this.session) {
      const opened = await this.openSession();
      if (opened.status !== 200) return opened as JsonResponse<T>;
    }
    Object.assign(headers, o.headers, await this.sign(method, path, body, o));
    return send(o.baseUrl ?? this.baseUrl, method, path, body, headers) as Promise<JsonResponse<T>>;
  }
}

// Sends a request and parses the JSON answer (or text).
export async function send(
  baseUrl: string,
  method: string,
  path: string,
  body: string | Uint8Array | undefined,
  headers: Record<string, string>,
): Promise<JsonResponse<any>> {
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed };
}

/** What an enrollment sends besides the secret. */
export interface EnrollOptions {
  machineId?: string;
  hostname?: string;
  agentVersion?: string;
  /** The new key (default: a fresh one). */
  key?: EndpointKey;
  /** Re-enrollment: the endpoint (and its current key) that proves it. */
  previous?: { endpointId: string; key: EndpointKey };
  created?: number;
}

// The body of POST /v1/agent/enroll with a new key and its proof, as the agent's enroll command sends it.
export function enrollBody(secret: string, o: EnrollOptions = {}): { body: Record<string, unknown>; key: EndpointKey } {
  const key = o.key ?? newEndpointKey();
  const machineId = o.machineId ?? `machine-${randomUUID()}`;
  const created = o.created ?? Math.floor(Date.now() / 1000);
  const fields = {
    hostname: o.hostname ?? `host-${machineId}`.slice(0, 200),
    platform: 'linux',
    machineId,
    agentVersion: o.agentVersion ?? '0.1.0',
    publicKey: key.publicKeyPem,
    created,
  };
  const proof = signEndpointProof(
    key.privateKey,
    'enroll',
    enrollProofPayload({ ...fields, secretSha256: secretSha256(secret) }),
  );
  const previous = o.previous
    ? {
        endpointId: o.previous.endpointId,
        proof: signEndpointProof(
          o.previous.key.privateKey,
          'reenroll',
          reenrollProofPayload({ endpointId: o.previous.endpointId, machineId, publicKey: key.publicKeyPem, created }),
        ),
      }
    : undefined;
  return { body: { secret, ...fields, proof, ...(previous ? { previous } : {}) }, key };
}

// POST /v1/agent/enroll with a new key and its proof.
export async function enrollWithKey(
  baseUrl: string,
  secret: string,
  o: EnrollOptions = {},
): Promise<{ res: JsonResponse<any>; agent: SignedAgent | null; key: EndpointKey }> {
  const { body, key } = enrollBody(secret, o);
  const res = await send(baseUrl, 'POST', '/v1/agent/enroll', JSON.stringify(body), {
    'content-type': 'application/json',
  });
  const ok = res.status === 201 || res.status === 202;
  return { res, key, agent: ok ? new SignedAgent(baseUrl, res.body.endpointId, res.body.groupId, key) : null };
}

// Enrolls and returns the signed agent (fails loudly unless 201).
export async function enrollAgent(baseUrl: string, secret: string, o: EnrollOptions = {}): Promise<SignedAgent> {
  const r = await enrollWithKey(baseUrl, secret, o);
  if (r.res.status !== 201 || !r.agent) throw new Error(`enroll: ${r.res.status} ${JSON.stringify(r.res.body)}`);
  return r.agent;
}

// Creates a group (if needed) and `count` active endpoints with their own keys (rows inserted directly).
export async function keyedEndpoints(api: TestApi, count = 1, groupId: string = randomUUID()): Promise<SignedAgent[]> {
  const prisma = prismaFor(api.db.url);
  try {
    await prisma.group.upsert({ where: { id: groupId }, create: { id: groupId, name: `g-${groupId}` }, update: {} });
    const out: SignedAgent[] = [];
    for (let i = 0; i < count; i++) {
      const key = newEndpointKey();
      const id = randomUUID();
      await prisma.endpoint.create({
        data: {
          id,
          groupId,
          machineId: `m-${id}`,
          hostname: `host-${i}`,
          platform: 'linux',
          agentVersion: '0.1.0',
          publicKey: key.publicKeyPem,
          keyId: key.keyId,
          keyAt: new Date(),
        },
      });
      out.push(new SignedAgent(api.baseUrl, id, groupId, key));
    }
    return out;
  } finally {
    await prisma.$disconnect();
  }
}
