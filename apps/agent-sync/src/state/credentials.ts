// The endpoint's enrollment state: server, endpoint id, trusted bundle keys (mode 0600); its key is endpoint-key.pem.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { signedStatementSchema, trustedKeySchema } from '@hookwarden/hook-core';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-file';

export const credentialsSchema = z.object({
  serverUrl: z.url(),
  endpointId: z.string().min(1),
  groupId: z.string().min(1),
  /** Legacy bearer credential of endpoints enrolled before endpoint keys; dropped once the key is registered. */
  credential: z.string().min(1).optional(),
  machineId: z.string().min(1),
  /** Public keys (Ed25519, SPKI PEM) trusted to sign bundles, by key id. */
  publicKeys: z.array(trustedKeySchema).min(1),
  enrolledAt: z.iso.datetime(),
  /** The newest signed assignment statement adopted (verified when adopted); absent for agents enrolled before. */
  assignment: signedStatementSchema.optional(),
  /** Sequence of the newest signed key list adopted: a list with a lower one is a replay (absent: none yet). */
  keyListSequence: z.number().int().min(0).optional(),
});
export type Credentials = z.infer<typeof credentialsSchema>;

export const CREDENTIALS_FILE = 'credentials.json';

// Reads the credentials file; null when the endpoint is not enrolled. Throws naming the file if it is corrupt.
export async function readCredentials(stateDir: string): Promise<Credentials | null> {
  const file = path.join(stateDir, CREDENTIALS_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const parsed = credentialsSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

// Stores the credentials atomically, readable only by the agent's user.
export async function writeCredentials(stateDir: string, credentials: Credentials): Promise<void> {
  await writeFileAtomic(
    path.join(stateDir, CREDENTIALS_FILE),
    JSON.stringify(credentialsSchema.parse(credentials), null, 2) + '\n',
    0o600,
  );
}
