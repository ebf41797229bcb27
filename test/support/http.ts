// Small HTTP helpers for tests: JSON requests with a bearer token against a running API.
import http from 'node:http';

export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

// Sends a request and parses the JSON answer (or text when it is not JSON).
export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T };
}

// A lighter JSON POST over node:http with a keep-alive agent (for high-volume tests such as the fuzz).

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function postJson(
  baseUrl: string,
  path: string,
  token: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const payload = Buffer.from(JSON.stringify(body));
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': payload.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          if ((res.headers['content-type'] ?? '').includes('json') && text) parsed = JSON.parse(text);
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
