// The capture policy's cached copy in the state directory, as the hook path reads it (no network, no zod for plain
// settings): every hook event reads it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { type CaptureSettings, DEFAULT_CAPTURE_SETTINGS, parseCaptureSettings } from '@hookwarden/hook-core/cli';

export const CAPTURE_SETTINGS_FILE = 'audit-settings.json';

// The cached settings, or the defaults when none were fetched yet (or the cache is unreadable).
export async function readCaptureSettings(stateDir: string): Promise<CaptureSettings> {
  try {
    const raw: unknown = JSON.parse(await fs.readFile(path.join(stateDir, CAPTURE_SETTINGS_FILE), 'utf8'));
    return parseCaptureSettings(raw) ?? DEFAULT_CAPTURE_SETTINGS;
  } catch {
    return DEFAULT_CAPTURE_SETTINGS;
  }
}

// The zerotwo-hooks options expressing the settings (--capture, --max-excerpt-bytes, --[no-]default-redact,
// one --redact per pattern); appended after the user's arguments, so the admin's choice wins.
export function captureArgs(settings: CaptureSettings): string[] {
  const args = ['--capture', settings.capture, '--max-excerpt-bytes', String(settings.maxExcerptBytes)];
  args.push(settings.useDefaultRedact ? '--default-redact' : '--no-default-redact');
  for (const pattern of settings.redactPatterns) args.push('--redact', pattern);
  return args;
}
