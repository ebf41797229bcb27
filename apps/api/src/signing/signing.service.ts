// Ed25519 bundle signing: the private key from HOOKWARDEN_SIGNING_KEY, or generated once and stored.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { canonicalJson } from '@hookwarden/hook-core';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { SigningRepository } from './signing.repository';

export interface PublicKeyView {
  kid: string;
  publicKeyPem: string;
}

// Key id: the first 16 hex characters of the SHA-256 of the public key's SPKI DER.
export function keyIdOf(publicKey: KeyObject): string {
  return (
    'ed25519:' +
    createHash('sha256')
      .update(publicKey.export({ type: 'spki', format: 'der' }))
      .digest('hex')
      .slice(0, 16)
  );
}

// Accepts a PKCS#8 PEM or the base64 of one.
export function parsePrivateKey(text: string): KeyObject {
  const pem = text.includes('-----BEGIN') ? text : Buffer.from(text, 'base64').toString('utf8');
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('HOOKWARDEN_SIGNING_KEY must be an Ed25519 private key');
  return key;
}

@Injectable()
export class SigningService implements OnModuleInit {
  private readonly logger = new Logger('Signing');
  private privateKey: KeyObject | null = null;
  private kid = '';
  private trustedCache: { at: number; keys: PublicKeyView[] } | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: SigningRepository,
  ) {}

  private loading: Promise<void> | null = null;

  // Starts loading the key without blocking start-up (the API must come up, and say why it is not ready,
  // even while PostgreSQL is unreachable); signing waits for it.
  onModuleInit(): void {
    void this.ready().catch((err: unknown) => {
      this.logger.warn({ err }, 'could not load the bundle-signing key yet; will retry when a release is signed');
    });
  }

  // Resolves once the key is loaded (retried on the next call after a failure).
  ready(): Promise<void> {
    if (this.privateKey) return Promise.resolve();
    if (!this.loading) {
      this.loading = this.load().catch((err: unknown) => {
        this.loading = null;
        throw err;
      });
    }
    return this.loading;
  }

  // Loads the configured key (publishing its public half) or the stored one, generating it on first start.
  private async load(): Promise<void> {
    if (this.config.HOOKWARDEN_SIGNING_KEY) {
      const key = parsePrivateKey(this.config.HOOKWARDEN_SIGNING_KEY);
      const pub = createPublicKey(key);
      const kid = keyIdOf(pub);
      await this.repo.ensurePublic(kid, pub.export({ type: 'spki', format: 'pem' }).toString());
      this.kid = kid;
      this.privateKey = key;
      return;
    }
    const { key, created } = await this.repo.findOrCreatePrivate(() => {
      const pair = generateKeyPairSync('ed25519');
      return {
        kid: keyIdOf(pair.publicKey),
        publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      };
    });
    if (created) {
      this.logger.warn(
        `HOOKWARDEN_SIGNING_KEY is not set: generated bundle-signing key ${key.kid} and stored it in the database; ` +
          'set HOOKWARDEN_SIGNING_KEY to manage the key yourself',
      );
    }
    this.kid = key.kid;
    this.privateKey = createPrivateKey(key.privateKeyPem!);
  }

  // Signs bytes; returns the key id and the base64 signature.
  sign(data: Buffer): { keyId: string; signature: string } {
    if (!this.privateKey) throw new Error('signing key not loaded');
    return { keyId: this.kid, signature: sign(null, data, this.privateKey).toString('base64') };
  }

  // Signs the canonical JSON of a value once the key is loaded; returns the key id and the base64 signature.
  async signCanonical(value: unknown): Promise<{ keyId: string; signature: string }> {
    await this.ready();
    return this.sign(Buffer.from(canonicalJson(value), 'utf8'));
  }

  // The trusted key list signed by the active key, so agents accept additions only from a key they already trust.
  async signedKeyList(): Promise<{ keys: PublicKeyView[]; keyId: string; signature: string }> {
    const keys = await this.trustedKeys();
    return { keys, ...(await this.signCanonical(keys)) };
  }

  // The public keys agents must trust (every non-retired key), cached for a few seconds.
  async trustedKeys(): Promise<PublicKeyView[]> {
    await this.ready();
    if (this.trustedCache && Date.now() - this.trustedCache.at < 10_000) return this.trustedCache.keys;
    const keys = await this.repo.trusted();
    this.trustedCache = { at: Date.now(), keys };
    return keys;
  }
}
