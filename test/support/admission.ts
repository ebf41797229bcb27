// Pending duplicates for admission tests, written as the enrollment of a known machine id without proof of its key
// leaves them: a new endpoint (admission 'pending', duplicate_of the known one) and a "duplicate machine id" finding.
// Stand-in until that enrollment path exists: then tests make them with a real enrollment instead.
import { randomBytes, randomUUID } from 'node:crypto';
import { AGENT_TOKEN_PREFIX, hashSecret } from '../../apps/api/src/auth/principal';
import { DUPLICATE_MACHINE_ID, type DuplicateMachineIdDetails } from '../../apps/api/src/endpoints/admission';
import { query } from './sync-factories';

export interface PendingDuplicate {
  id: string;
  /** A bearer credential stored for it (so tests can show it never works once rejected). */
  credential: string;
  findingId: string;
}

// Inserts a pending duplicate of `existingEndpointId` (same machine id), in `groupId` (default: the existing one's).
export async function insertPendingDuplicate(
  dbUrl: string,
  existingEndpointId: string,
  opts: { groupId?: string; hostname?: string; platform?: string } = {},
): Promise<PendingDuplicate> {
  const [existing] = await query<{ machine_id: string; group_id: string }>(
    dbUrl,
    'SELECT machine_id, group_id::text AS group_id FROM endpoints WHERE id = $1',
    [existingEndpointId],
  );
  if (!existing) throw new Error(`no endpoint ${existingEndpointId}`);
  const id = randomUUID();
  const credential = `${AGENT_TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
  const hostname = opts.hostname ?? `dup-${id.slice(0, 8)}`;
  const platform = opts.platform ?? 'linux';
  const groupId = opts.groupId ?? existing.group_id;
  await query(
    dbUrl,
    `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, credential_hash, admission,
       duplicate_of)
     VALUES ($1, $2, $3, $4, $5, '0.1.0', $6, 'pending', $7)`,
    [id, groupId, existing.machine_id, hostname, platform, hashSecret(credential), existingEndpointId],
  );
  const details: DuplicateMachineIdDetails = {
    machineId: existing.machine_id,
    duplicateOf: existingEndpointId,
    hostname,
    platform,
  };
  const findingId = randomUUID();
  await query(
    dbUrl,
    `INSERT INTO hook_run_findings (id, endpoint_id, group_id, kind, details) VALUES ($1, $2, $3, $4, $5)`,
    [findingId, id, groupId, DUPLICATE_MACHINE_ID, JSON.stringify(details)],
  );
  return { id, credential, findingId };
}
