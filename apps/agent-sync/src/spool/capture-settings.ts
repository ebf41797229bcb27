// The capture policy governed by the admin (per group), cached in the state directory for the hook path (no network).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { type CaptureSettings, captureSettingsSchema, DEFAULT_CAPTURE_SETTINGS } from '@hookwarden/hook-core';
import type { ApiClient } from '../client/api-client';
import { writeFileAtomic } from '../state/atomic-file';

export const CAPTURE_SETTINGS_FILE = 'audit-settings.json';

// The cached settings, or the defaults when none were fetched yet (or the cache is unreadable).
export async function readCaptureSettings(stateDir: string): Promise<CaptureSettings> {
  try {
    const raw: unknown = JSON.parse(await fs.readFile(path.join(stateDir, CAPTURE_SETTINGS_FILE), 'utf8'));
    const parsed = captureSettingsSchema.safeParse(raw);
    return parsed.success ? parsed.data : DEFAULT_CAPTURE_SETTINGS;
  } catch {
    return DEFAULT_CAPTURE_SETTINGS;
  }
}

// Fetches the endpoint's settings from the server and caches them atomically.
export async function refreshCaptureSettings(client: ApiClient, stateDir: string): Promise<CaptureSettings> {
  const settings = captureSettingsSchema.parse(
    await client.json<unknown>('GET', '/v1/agent/audit-settings', { maxBodyBytes: 1024 * 1024 }),
  );
  await writeFileAtomic(path.join(stateDir, CAPTURE_SETTINGS_FILE), JSON.stringify(settings, null, 2) + '\n', 0o600);
  return settings;
}

// The zerotwo-hooks options expressing the settings (--capture, --max-excerpt-bytes, --[no-]default-redact,
// one --redact per pattern); appended after the user's arguments, so the admin's choice wins.
export function captureArgs(settings: CaptureSettings): string[] {
  const args = ['--capture', settings.capture, '--max-excerpt-bytes', String(settings.maxExcerptBytes)];
  args.push(settings.useDefaultRedact ? '--default-redact' : '--no-default-redact');
  for (const pattern of settings.redactPatterns) args.push('--redact', pattern);
  return args;
}
