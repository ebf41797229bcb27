import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';

describe('health and error shape', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('GET /healthz answers 200 without credentials', async () => {
    const res = await fetch(`${api.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('GET /readyz answers 200 when PostgreSQL and Redis answer', async () => {
    const res = await fetch(`${api.baseUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { postgresql: 'ok', redis: 'ok' } });
  });

  it('unknown routes get the one error shape with the request id', async () => {
    const res = await fetch(`${api.baseUrl}/nope`, { headers: { 'x-request-id': 'req-123' } });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; requestId: string; message: string } };
    expect(body.error.code).toBe('not_found');
    expect(body.error.requestId).toBe('req-123');
  });

  it('serves the OpenAPI document at /docs', async () => {
    const res = await fetch(`${api.baseUrl}/docs/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toContain('/readyz');
    const html = await fetch(`${api.baseUrl}/docs`);
    expect(html.status).toBe(200);
  });
});

describe('readiness names the failing dependency', () => {
  it('answers 503 naming postgresql when the database is unreachable', async () => {
    const api = await startTestApi({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none' }, { bootstrap: false });
    try {
      const res = await fetch(`${api.baseUrl}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string; details: { failing: object } } };
      expect(body.error.code).toBe('unavailable');
      expect(body.error.message).toContain('postgresql');
      expect(Object.keys(body.error.details.failing)).toEqual(['postgresql']);
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      await api.close();
    }
  });
});
