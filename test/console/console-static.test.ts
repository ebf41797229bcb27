// The web console as the API serves it: strict CSP and security headers, no inline script, hashed assets cached
// for a year (gzip, ETag/304), index.html revalidated and served for every console path, 404s for missing files;
// the first-screen JavaScript budget; the committed API types match the document the API serves.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST, FIRST_SCREEN_BUDGET, measure } from '../../apps/console/scripts/bundle-size.mjs';
import { GENERATED, openApiEnums, openApiTypes } from '../../libs/admin-client/scripts/openapi-types.mjs';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';

let api: TestApi;
let index: string;

beforeAll(async () => {
  index = readFileSync(path.join(DIST, 'index.html'), 'utf8'); // built by `npm test` / `npm run build`
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

// The hashed script and stylesheet index.html references.
function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
}

describe('console static serving', () => {
  it('serves index.html under /console with a strict CSP, no inline script and no-cache', async () => {
    for (const p of ['/console', '/console/', '/console/policies/123', '/console/hook-runs?x=1']) {
      const res = await fetch(api.baseUrl + p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache, no-store');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self';");
      // Inline <style> only with this response's nonce, which the page carries for the editor.
      const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{24})'/.exec(csp)![1]!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toBe(index.replace('%CSP_NONCE%', nonce));
    }
    // Every script is an external file from this origin; nothing from a CDN.
    expect(index).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(index).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(assetsOf(index).length).toBeGreaterThanOrEqual(2);
  });

  it('serves hashed assets for a year, gzipped on request, with an ETag answered by 304', async () => {
    const js = assetsOf(index).find((a) => a.endsWith('.js'))!;
    const plain = await fetch(`${api.baseUrl}/console/${js}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const body = Buffer.from(await plain.arrayBuffer());
    expect(body.equals(readFileSync(path.join(DIST, js)))).toBe(true);
    // Raw gzip bytes (fetch would inflate them): plain node:http.
    const zipped = await new Promise<{ status: number; enc: string | undefined; body: Buffer }>((resolve, reject) => {
      const req = http.get(`${api.baseUrl}/console/${js}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, enc: res.headers['content-encoding'], body: Buffer.concat(chunks) }),
        );
      });
      req.on('error', reject);
    });
    expect(zipped.enc).toBe('gzip');
    expect(gunzipSync(zipped.body).equals(body)).toBe(true);
    const etag = plain.headers.get('etag')!;
    const again = await fetch(`${api.baseUrl}/console/${js}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('answers 404 in the API error shape for build files that do not exist (never HTML for a script)', async () => {
    for (const p of ['/console/assets/missing-abc123.js', '/console/nothing.css']) {
      const res = await call(api.baseUrl, 'GET', p);
      expect(res.status, p).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it(`keeps the first screen's JavaScript within ${FIRST_SCREEN_BUDGET / 1024} KB gzipped`, () => {
    const m = measure();
    expect(m.files.some((f) => f.includes('overview'))).toBe(true);
    expect(m.total).toBeLessThanOrEqual(FIRST_SCREEN_BUDGET);
  });

  it("the admin client's committed API types are generated from the OpenAPI document the API serves", async () => {
    const served = await call(api.baseUrl, 'GET', '/docs/openapi.json');
    const root = path.resolve(__dirname, '../..');
    const committed = readFileSync(path.join(root, GENERATED.types), 'utf8');
    const message = `${GENERATED.types} is stale: run npm run build && npm run api-types`;
    expect(await openApiTypes(served.body), message).toBe(committed);
    expect(openApiEnums(served.body), message).toBe(readFileSync(path.join(root, GENERATED.enums), 'utf8'));
    expect(JSON.parse(readFileSync(path.join(root, GENERATED.document), 'utf8')), message).toEqual(served.body);
  });
});
