// `hookwarden-agent enroll --server URL --secret S`: registers this machine with a new endpoint key (0600), proving the
// current key when re-enrolling, and stores the enrollment state.
import os from 'node:os';
import type { Command } from 'commander';
import {
  enrollProofPayload,
  reenrollProofPayload,
  secretSha256,
  type SignedStatement,
  signEndpointProof,
  verifyAssignment,
} from '@hookwarden/hook-core';
import { keyListDecision } from '../sync/trusted-keys';
import { ApiClient } from '../client/api-client';
import { readCredentials, writeCredentials } from '../state/credentials';
import { newEndpointKey, readEndpointKey, storeEndpointKey } from '../state/endpoint-key';
import { machineId } from '../state/machine-id';
import { AGENT_VERSION } from '../version';
import { absoluteDir, defaultStateDir } from './options';

interface EnrollAnswer {
  endpointId: string;
  groupId: string;
  /** pending: the machine id is already known without proof of its key; an admin decides. */
  admission?: 'active' | 'pending';
  reenrolled: boolean;
  publicKeys: Array<{ kid: string; publicKeyPem: string }>;
  /** The signed group assignment (servers before assignments were signed send none). */
  assignment?: SignedStatement;
  /** The signed key list (its sequence becomes the floor for later lists). */
  keyList?: unknown;
}

// Adds the enroll command.
export function registerEnrollCommand(program: Command): void {
  program
    .command('enroll')
    .description('enroll this machine with a Hookwarden server using an enrollment secret')
    .requiredOption('--server <url>', 'API base URL, e.g. https://hookwarden.example.com')
    .option('--secret <secret>', 'enrollment secret (hws_…); or set HOOKWARDEN_ENROLL_SECRET')
    .option('--state-dir <dir>', 'agent state directory', absoluteDir, defaultStateDir())
    .option('--root <dir>', 'prefix for system paths (tests, containers)', absoluteDir, '/')
    .option('--hostname <name>', 'override the reported hostname')
    .action(async (opts: { server: string; secret?: string; stateDir: string; root: string; hostname?: string }) => {
      const secret = opts.secret ?? process.env.HOOKWARDEN_ENROLL_SECRET;
      if (!secret) throw new Error('enroll: --secret (or HOOKWARDEN_ENROLL_SECRET) is required');
      const id = await machineId(opts.stateDir, opts.root);
      const client = new ApiClient({ baseUrl: opts.server, timeoutMs: 30_000 });
      // A new key for this enrollment; the current one (same server) proves this is the same endpoint.
      const existing = await readCredentials(opts.stateDir).catch(() => null);
      const oldKey = existing && existing.serverUrl === client.baseUrl ? await readEndpointKey(opts.stateDir) : null;
      const key = newEndpointKey();
      const created = Math.floor(Date.now() / 1000);
      const fields = {
        hostname: opts.hostname ?? os.hostname(),
        platform: process.platform,
        machineId: id,
        agentVersion: AGENT_VERSION,
        publicKey: key.publicKeyPem,
        created,
      };
      const proof = signEndpointProof(
        key.privateKey,
        'enroll',
        enrollProofPayload({ ...fields, secretSha256: secretSha256(secret) }),
      );
      const previous =
        existing && oldKey
          ? {
              endpointId: existing.endpointId,
              proof: signEndpointProof(
                oldKey.privateKey,
                'reenroll',
                reenrollProofPayload({
                  endpointId: existing.endpointId,
                  machineId: id,
                  publicKey: key.publicKeyPem,
                  created,
                }),
              ),
            }
          : undefined;
      const answer = await client.json<EnrollAnswer>('POST', '/v1/agent/enroll', {
        body: { secret, ...fields, proof, ...(previous ? { previous } : {}) },
        maxBodyBytes: 1024 * 1024,
      });
      // The assignment must verify with the keys of the same answer and name this endpoint and group.
      if (answer.assignment !== undefined) {
        const a = verifyAssignment(answer.assignment, answer.publicKeys);
        if (a.endpointId !== answer.endpointId || a.groupId !== answer.groupId) {
          throw new Error(
            `enroll: the server's assignment names endpoint ${a.endpointId} in group ${a.groupId}, ` +
              `not ${answer.endpointId} in ${answer.groupId}`,
          );
        }
      }
      let keyListSequence: number | undefined;
      if (answer.keyList !== undefined) {
        const d = keyListDecision(answer.keyList, answer.publicKeys, 0, Date.now(), Number.POSITIVE_INFINITY);
        if (d.kind === 'refuse') throw new Error(`enroll: the server's ${d.reason}`);
        keyListSequence = d.sequence;
      }
      // The key is stored only once the server accepted it (a refused enrollment keeps the old key).
      await storeEndpointKey(opts.stateDir, key);
      await writeCredentials(opts.stateDir, {
        serverUrl: client.baseUrl,
        endpointId: answer.endpointId,
        groupId: answer.groupId,
        machineId: id,
        publicKeys: answer.publicKeys,
        enrolledAt: new Date().toISOString(),
        ...(keyListSequence !== undefined ? { keyListSequence } : {}),
        ...(answer.assignment
          ? {
              assignment: {
                statement: answer.assignment.statement,
                signature: answer.assignment.signature,
                keyId: answer.assignment.keyId,
              },
            }
          : {}),
      });
      const what =
        answer.admission === 'pending'
          ? 'enrollment pending approval (this machine id is already enrolled): endpoint'
          : answer.reenrolled
            ? 're-enrolled endpoint'
            : 'enrolled endpoint';
      process.stdout.write(`${what} ${answer.endpointId} in group ${answer.groupId}\n`);
    });
}
