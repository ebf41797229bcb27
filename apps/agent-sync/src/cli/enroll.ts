// `hookwarden-agent enroll --server URL --secret S`: registers this machine and stores its credential (0600).
import os from 'node:os';
import type { Command } from 'commander';
import { type SignedStatement, verifyAssignment } from '@hookwarden/hook-core';
import { keyListDecision } from '../sync/trusted-keys';
import { ApiClient } from '../client/api-client';
import { writeCredentials } from '../state/credentials';
import { machineId } from '../state/machine-id';
import { AGENT_VERSION } from '../version';
import { absoluteDir, defaultStateDir } from './options';

interface EnrollAnswer {
  endpointId: string;
  groupId: string;
  credential: string;
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
      const answer = await client.json<EnrollAnswer>('POST', '/v1/agent/enroll', {
        body: {
          secret,
          hostname: opts.hostname ?? os.hostname(),
          platform: process.platform,
          machineId: id,
          agentVersion: AGENT_VERSION,
        },
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
      await writeCredentials(opts.stateDir, {
        serverUrl: client.baseUrl,
        endpointId: answer.endpointId,
        groupId: answer.groupId,
        credential: answer.credential,
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
      process.stdout.write(
        `${answer.reenrolled ? 're-enrolled' : 'enrolled'} endpoint ${answer.endpointId} in group ${answer.groupId}\n`,
      );
    });
}
