// Decodes a version's managed files into bytes with their sha256 and size (paths and modes are the content rules').
import type { ConfigDiagnostic } from '../types';
import { fileSha256 } from '../bundle/version-digest';
import type { VersionFileInput } from './input';

/** A managed file ready to store and ship: bytes, sha256 (hex), size and mode. */
export interface PreparedFile {
  path: string;
  content: Buffer;
  sha256: string;
  size: number;
  mode: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// The bytes of each file; base64 that does not decode exactly is an error located at `$.files[i].content`.
export function decodeVersionFiles(input: readonly VersionFileInput[]): {
  files: PreparedFile[];
  errors: ConfigDiagnostic[];
} {
  const errors: ConfigDiagnostic[] = [];
  const files: PreparedFile[] = [];
  input.forEach((f, i) => {
    let content: Buffer;
    if (typeof f.content !== 'string') {
      content = Buffer.from(f.content.buffer, f.content.byteOffset, f.content.byteLength);
    } else if (f.encoding === 'base64') {
      if (f.content.length % 4 !== 0 || !BASE64.test(f.content)) {
        const path = `$.files[${i}].content`;
        errors.push({ severity: 'error', code: 'invalid_base64', message: 'content is not valid base64', path });
        return;
      }
      content = Buffer.from(f.content, 'base64');
    } else {
      content = Buffer.from(f.content, 'utf8');
    }
    files.push({ path: f.path, content, sha256: fileSha256(content), size: content.length, mode: f.mode });
  });
  return { files, errors };
}
