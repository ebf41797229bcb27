// The last verified audit-log checkpoint per server, kept in the config directory and passed to the next verify
// (so removing the newest entries is caught across runs even if the head row is moved back too).
import { verify as verifySignature } from 'node:crypto';
import path from 'node:path';
import { canonicalJson } from '@hookwarden/hook-core';
import { z } from 'zod';
import type { PublicKeyList } from '../client/types';
import { CliError } from '../cli/errors';
import { readBounded, writePrivate } from '../config/files';

const checkpointSchema = z.object({
  kind: z.string(),
  seq: z.string().regex(/^\d{1,20}$/),
  hash: z.string().min(1).max(200),
  at: z.string(),
  keyId: z.string(),
  signature: z.string(),
});
/** A checkpoint as this machine keeps it (what the API signed, read back from the file). */
export type KeptCheckpoint = z.infer<typeof checkpointSchema>;
const fileSchema = z.object({ servers: z.record(z.string(), checkpointSchema).default({}) });

export const CHECKPOINTS_FILE = 'audit-checkpoints.json';

// The checkpoint file in a config directory.
export function checkpointFile(configDir: string): string {
  return path.join(configDir, CHECKPOINTS_FILE);
}

// Reads the stored checkpoint of a server (null: none yet).
export async function loadCheckpoint(file: string, server: string): Promise<KeptCheckpoint | null> {
  const raw = await readBounded(file, 4 * 1024 * 1024);
  if (raw === null) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new CliError(`${file} is not valid JSON: fix or remove it (it holds the last verified audit checkpoints)`);
  }
  const parsed = fileSchema.safeParse(doc);
  if (!parsed.success) throw new CliError(`${file} is not a checkpoint file: fix or remove it`);
  return parsed.data.servers[server] ?? null;
}

// Stores the checkpoint of a server (atomically, mode 0600), keeping the others.
export async function saveCheckpoint(file: string, server: string, cp: KeptCheckpoint): Promise<void> {
  const raw = await readBounded(file, 4 * 1024 * 1024);
  const doc = raw ? fileSchema.safeParse(JSON.parse(raw.toString('utf8'))) : undefined;
  const servers = doc?.success ? doc.data.servers : {};
  servers[server] = cp;
  await writePrivate(file, JSON.stringify({ servers }, null, 2) + '\n');
}

// Checks a checkpoint's Ed25519 signature (over the canonical JSON of {kind, seq, hash, at}) with a trusted key.
export function checkpointSignatureValid(cp: KeptCheckpoint, keys: PublicKeyList['keys']): boolean {
  const key = keys.find((k) => k.kid === cp.keyId);
  if (!key) return false;
  const data = Buffer.from(canonicalJson({ kind: cp.kind, seq: cp.seq, hash: cp.hash, at: cp.at }), 'utf8');
  try {
    return verifySignature(null, data, key.publicKeyPem, Buffer.from(cp.signature, 'base64'));
  } catch {
    return false;
  }
}
