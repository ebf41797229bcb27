// Managed files as the editor holds them: UTF-8 text when the bytes are valid UTF-8, base64 otherwise.
export interface EditFile {
  path: string;
  mode: number;
  encoding: 'utf8' | 'base64';
  content: string;
}

// Decodes base64 into bytes.
export function fromBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// Encodes bytes as base64.
export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

// Text when the bytes are UTF-8 without NUL, else null (a binary file).
export function asText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

// A file from its bytes (an upload, or a stored version's base64 content).
export function fileFromBytes(path: string, mode: number, bytes: Uint8Array): EditFile {
  const text = asText(bytes);
  return text === null
    ? { path, mode, encoding: 'base64', content: toBase64(bytes) }
    : { path, mode, encoding: 'utf8', content: text };
}

// "755" for 0o755.
export const octal = (mode: number): string => mode.toString(8).padStart(3, '0');
