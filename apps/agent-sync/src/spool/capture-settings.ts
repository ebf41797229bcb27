// The capture policy governed by the admin (per group), cached in the state directory for the hook path
// (spool/capture-cache.ts reads it there).
import path from 'node:path';
import { type CaptureSettings, captureSettingsSchema } from '@hookwarden/hook-core';
import type { ApiClient } from '../client/api-client';
import { writeFileAtomic } from '../state/atomic-file';
import { CAPTURE_SETTINGS_FILE } from './capture-cache';

export { CAPTURE_SETTINGS_FILE, captureArgs, readCaptureSettings } from './capture-cache';

// Fetches the endpoint's settings from the server and caches them atomically.
export async function refreshCaptureSettings(client: ApiClient, stateDir: string): Promise<CaptureSettings> {
  const settings = captureSettingsSchema.parse(
    await client.json<unknown>('GET', '/v1/agent/audit-settings', { maxBodyBytes: 1024 * 1024 }),
  );
  await writeFileAtomic(path.join(stateDir, CAPTURE_SETTINGS_FILE), JSON.stringify(settings, null, 2) + '\n', 0o600);
  return settings;
}
