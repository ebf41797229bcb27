// The endpoint's own Ed25519 key pair: made by the agent, the private half never leaves the state directory (0600).
import { generateKeyPairSync, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { endpointKeyId, endpointPublicKeyPem } from '@hookwarden/hook-core';
import { writeFileAtomic } from './atomic-file';

export const ENDPOINT_KEY_FILE = 'endpoint-key.pem';
/** A key made for a migration, kept until the server accepted it (then renamed to ENDPOINT_KEY_FILE). */
export const PENDING_KEY_FILE = 'endpoint-key.pending.pem';
/** Largest key file read (a PKCS#8 Ed25519 PEM is 119 bytes). */
const MAX_KEY_FILE_BYTES = 4096;

export interface EndpointKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** SPKI PEM, as sent to the API. */
  publicKeyPem: string;
  /** `ek1:…`, the key's id. */
  keyId: string;
}

// The key pair from its private key.
function keyFrom(privateKey: KeyObject): EndpointKey {
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, publicKeyPem: endpointPublicKeyPem(publicKey), keyId: endpointKeyId(publicKey) };
}

// Reads the endpoint key; null when there is none yet. Throws naming the file when it is unreadable or not Ed25519.
export async function readEndpointKey(stateDir: string, name = ENDPOINT_KEY_FILE): Promise<EndpointKey | null> {
  const file = path.join(stateDir, name);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let text: string;
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_KEY_FILE_BYTES) throw new Error(`${file}: not a key file`);
    text = await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: text, format: 'pem' });
  } catch {
    throw new Error(`${file}: not a PEM private key`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${file}: not an Ed25519 key`);
  return keyFrom(privateKey);
}

// Makes a new key pair (not stored yet: storeEndpointKey once the server accepted it, so a refused enrollment keeps the old key).
export function newEndpointKey(): EndpointKey {
  return keyFrom(generateKeyPairSync('ed25519').privateKey);
}

// Stores the private key atomically, readable only by the agent's user.
export async function storeEndpointKey(stateDir: string, key: EndpointKey, name = ENDPOINT_KEY_FILE): Promise<void> {
  const pem = key.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  await writeFileAtomic(path.join(stateDir, name), pem, 0o600);
}

// Makes the pending key the endpoint key (an atomic rename; the server accepted it).
export async function promotePendingKey(stateDir: string): Promise<void> {
  await fs.rename(path.join(stateDir, PENDING_KEY_FILE), path.join(stateDir, ENDPOINT_KEY_FILE));
}
