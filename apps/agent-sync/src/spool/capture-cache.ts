// The capture policy's cached copy in the state directory, as the hook path reads it (no network, no zod for plain
// settings): every hook event reads it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type CaptureSettings, DEFAULT_CAPTURE_SETTINGS, parseCaptureSettings } from '@hookwarden/hook-core/cli';

export const CAPTURE_SETTINGS_FILE = 'audit-settings.json';

// The cached settings, or the defaults when none were fetched yet (or the cache is unreadable). Read synchronously
// (a small local file): no node:fs/promises for a hook event to load.
export function readCaptureSettings(stateDir: string): Promise<CaptureSettings> {
  let settings: CaptureSettings;
  try {
    const raw: unknown = JSON.parse(readFileSync(path.join(stateDir, CAPTURE_SETTINGS_FILE), 'utf8'));
    settings = parseCaptureSettings(raw) ?? DEFAULT_CAPTURE_SETTINGS;
  } catch {
    settings = DEFAULT_CAPTURE_SETTINGS;
  }
  return Promise.resolve(settings);
}

// The zerotwo-hooks options expressing the settings (--capture, --max-excerpt-bytes, --[no-]default-redact,
// one --redact per pattern); appended after the user's arguments, so the admin's choice wins.
export function captureArgs(settings: CaptureSettings): string[] {
  const args = ['--capture', settings.capture, '--max-excerpt-bytes', String(settings.maxExcerptBytes)];
  args.push(settings.useDefaultRedact ? '--default-redact' : '--no-default-redact');
  for (const pattern of settings.redactPatterns) args.push('--redact', pattern);
  return args;
}
