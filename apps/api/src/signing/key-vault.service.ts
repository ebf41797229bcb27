// The key-encryption keys of this process: HOOKWARDEN_KEK (base64 of 32 bytes) or the file HOOKWARDEN_KEK_FILE names,
// plus HOOKWARDEN_KEK_PREVIOUS (comma-separated, only to open rows during a rotation). Without either outside
// production, a KEK is generated once into `.hookwarden/kek` (mode 0600) so `npm start` works on a fresh clone; in
// production the configuration refuses to start without one (config.schema.ts).
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { hkdfSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { isSealed, kekIdOf, parseKek, seal, sealedKekId, unseal } from './kek';

/** Where a development KEK is generated when none is configured (relative to the working directory). */
export const DEV_KEK_FILE = path.join('.hookwarden', 'kek');

// Reads a KEK file, creating it (O_EXCL, 0600, 32 random bytes as base64) when `create` and it does not exist.
export function readKekFile(file: string, create: boolean): { kek: Buffer; created: boolean; mode: number } {
  let created = false;
  if (create) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, randomBytes(32).toString('base64') + '\n');
      } finally {
        closeSync(fd);
      }
      created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`HOOKWARDEN_KEK_FILE ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return { kek: parseKek(text, `HOOKWARDEN_KEK_FILE ${file}`), created, mode: statSync(file).mode & 0o777 };
}

@Injectable()
export class KeyVault {
  private readonly logger = new Logger('KeyVault');
  private keks: { current: Buffer; previous: Buffer[] } | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  // The configured KEKs, resolved once (the file is read, or generated in development, on first use).
  private resolve(): { current: Buffer; previous: Buffer[] } {
    if (this.keks) return this.keks;
    const c = this.config;
    let current: Buffer;
    if (c.HOOKWARDEN_KEK) current = parseKek(c.HOOKWARDEN_KEK, 'HOOKWARDEN_KEK');
    else {
      const file = path.resolve(c.HOOKWARDEN_KEK_FILE ?? DEV_KEK_FILE);
      const generate = c.NODE_ENV !== 'production';
      const r = readKekFile(file, generate);
      current = r.kek;
      if (r.created) {
        this.logger.warn(
          `no HOOKWARDEN_KEK configured: generated a key-encryption key into ${file} (mode 0600). Private signing keys ` +
            'are sealed with it: keep the file (losing it loses the stored signing keys) or set HOOKWARDEN_KEK.',
        );
      }
      if (r.mode & 0o077) this.logger.warn(`${file} is readable by other users (mode ${r.mode.toString(8)})`);
    }
    const previous = (c.HOOKWARDEN_KEK_PREVIOUS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((s, i) => parseKek(s, `HOOKWARDEN_KEK_PREVIOUS[${i}]`));
    this.keks = { current, previous };
    return this.keks;
  }

  /** The id of the current KEK. */
  get currentKekId(): string {
    return kekIdOf(this.resolve().current);
  }

  // A 32-byte key derived from the current KEK for one purpose (HKDF-SHA256, `info` names the purpose); the same on
  // every instance sharing the KEK, different for every purpose.
  deriveKey(info: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.resolve().current, Buffer.from('hookwarden', 'utf8'), info, 32));
  }

  // Seals a private key PEM for key `kid` under the current KEK.
  seal(pem: string, kid: string): string {
    return seal(pem, kid, this.resolve().current);
  }

  // Opens a stored private key (sealed under the current or a previous KEK; a legacy plain PEM passes through).
  open(stored: string, kid: string): string {
    if (!isSealed(stored)) return stored;
    const { current, previous } = this.resolve();
    return unseal(stored, kid, [current, ...previous]);
  }

  // Seals another secret (e.g. an IdP refresh token) bound to `owner` (the additional authenticated data).
  sealSecret(plaintext: string, owner: string): string {
    return seal(plaintext, owner, this.resolve().current);
  }

  // Opens what sealSecret sealed for the same `owner` (current or previous KEK); null when it does not open (another
  // owner, a KEK no longer configured, altered, or not a sealed value).
  openSecret(sealed: string, owner: string): string | null {
    if (!isSealed(sealed)) return null;
    const { current, previous } = this.resolve();
    try {
      return unseal(sealed, owner, [current, ...previous], owner);
    } catch (err) {
      this.logger.warn(`a sealed secret does not open: ${(err as Error).message}`);
      return null;
    }
  }

  // The stored value re-sealed under the current KEK, or null when it already is.
  reseal(stored: string, kid: string): string | null {
    if (isSealed(stored) && sealedKekId(stored) === this.currentKekId) return null;
    return this.seal(this.open(stored, kid), kid);
  }
}
