import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  endpointKeyId,
  endpointPublicKeyPem,
  parseEndpointPublicKey,
  signEndpointProof,
  verifyEndpointProof,
} from '../../src/identity';

const pair = () => generateKeyPairSync('ed25519');

describe('endpoint proofs', () => {
  it('verifies a proof for its purpose and payload only', () => {
    const { privateKey, publicKey } = pair();
    const payload = { endpointId: 'e1', machineId: 'm1', created: 1_800_000_000 };
    const sig = signEndpointProof(privateKey, 'reenroll', payload);
    expect(verifyEndpointProof(publicKey, 'reenroll', payload, sig)).toBe(true);
    expect(verifyEndpointProof(endpointPublicKeyPem(publicKey), 'reenroll', payload, sig)).toBe(true);
    expect(verifyEndpointProof(publicKey, 'enroll', payload, sig)).toBe(false);
    expect(verifyEndpointProof(publicKey, 'reenroll', { ...payload, machineId: 'm2' }, sig)).toBe(false);
    expect(verifyEndpointProof(pair().publicKey, 'reenroll', payload, sig)).toBe(false);
  });

  it('refuses malformed signatures and keys without throwing', () => {
    const { publicKey } = pair();
    expect(verifyEndpointProof(publicKey, 'enroll', {}, '')).toBe(false);
    expect(verifyEndpointProof(publicKey, 'enroll', {}, 'A'.repeat(129))).toBe(false);
    expect(verifyEndpointProof(publicKey, 'enroll', {}, 'AAAA')).toBe(false);
    expect(verifyEndpointProof('not a key', 'enroll', {}, 'A'.repeat(88))).toBe(false);
  });

  it('accepts only Ed25519 SPKI PEM public keys, naming the problem', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'pem', type: 'spki' });
    expect(() => parseEndpointPublicKey(rsa.toString())).toThrow(/must be Ed25519, not rsa/);
    expect(() => parseEndpointPublicKey('x'.repeat(600))).toThrow(/at most 512 characters/);
    expect(() => parseEndpointPublicKey('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----')).toThrow(
      /not a PEM public key/,
    );
  });

  it('derives a stable key id from the key, not its PEM text', () => {
    const { publicKey } = pair();
    const pem = endpointPublicKeyPem(publicKey);
    expect(endpointKeyId(pem)).toBe(endpointKeyId(publicKey));
    expect(endpointKeyId(pem.replace(/\n/g, '\r\n'))).toBe(endpointKeyId(publicKey));
    expect(endpointKeyId(pem)).toMatch(/^ek1:[A-Za-z0-9_-]{43}$/);
    expect(endpointKeyId(pair().publicKey)).not.toBe(endpointKeyId(publicKey));
  });
});
