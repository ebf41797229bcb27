// The HTTP client against hostile servers: silence, endless bodies, redirects, non-JSON errors, 503 with
// Retry-After — bounded in time and size, the token never sent anywhere else.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

// Starts a server on an ephemeral port; returns its base URL.
async function serve(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

// Runs the built CLI against a URL.
function cli(url: string, args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const bin = path.resolve(__dirname, '../../bin/hookwarden.js');
  const child = spawn(process.execPath, [bin, '--config', '/nonexistent/hw-config.toml', ...args], {
    env: { ...process.env, HOOKWARDEN_URL: url, HOOKWARDEN_TOKEN: 'hwt_secret_token' },
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  return new Promise((r) => child.on('close', (code) => r({ code, stderr, stdout })));
}

describe('ApiClient against hostile servers', () => {
  it('a server that never answers hits the deadline', async () => {
    const url = await serve(() => {
      /* never answers */
    });
    const r = await cli(url, ['--timeout', '1s', 'groups', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('timed out');
  });

  it('an endless body is cut at the size limit', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (res.write(chunk));
        res.once('drain', pump);
      };
      res.write('[');
      pump();
      res.on('error', () => undefined);
    });
    const client = new ApiClient({ baseUrl: url, token: 't', maxBytes: 1024 * 1024, retries: 0 });
    await expect(client.json('GET', '/v1/groups')).rejects.toThrow(/exceeds 1048576 bytes/);
  });

  it('a redirect is refused and the token is not replayed to its target', async () => {
    let leaked: string | undefined;
    const other = await serve((req, res) => {
      leaked = req.headers.authorization;
      res.end('{}');
    });
    const url = await serve((_req, res) => {
      res.writeHead(302, { location: `${other}/v1/groups` });
      res.end();
    });
    const r = await cli(url, ['groups', 'list']);
    expect(r.code).toBe(1);
    expect(leaked).toBeUndefined();
    expect(r.stderr).not.toContain('hwt_secret_token');
  });

  it('a non-JSON 500 is reported by status without a stack trace', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html>oops</html>');
    });
    const r = await cli(url, ['groups', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('500');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('503 with Retry-After is retried for reads, then succeeds', async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls++;
      if (calls < 3) {
        res.writeHead(503, { 'retry-after': '0', 'content-type': 'application/json' });
        res.end('{"error":{"code":"unavailable","message":"busy"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items":[],"nextCursor":null}');
    });
    const client = new ApiClient({ baseUrl: url, token: 't' });
    await expect(client.json('GET', '/v1/groups')).resolves.toEqual({ items: [], nextCursor: null });
    expect(calls).toBe(3);
    // Writes are never retried.
    calls = 0;
    await expect(client.json('POST', '/v1/groups', { body: { name: 'x' } })).rejects.toThrow(/503 unavailable: busy/);
    expect(calls).toBe(1);
  });

  it('the API error shape becomes a message with located problems', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            code: 'validation_failed',
            message: 'Invalid policy: line 4, column 11: matcher must be a string',
            details: [
              {
                severity: 'error',
                code: 'invalid_value',
                message: 'matcher must be a string',
                line: 4,
                column: 11,
                field: '$.toml',
              },
            ],
            requestId: 'r1',
          },
        }),
      );
    });
    const r = await cli(url, ['groups', 'create', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('400 validation_failed: Invalid policy: line 4, column 11');
    expect(r.stderr).toContain('line 4, column 11 (field $.toml): matcher must be a string [invalid_value]');
  });
});
