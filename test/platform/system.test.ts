import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthRecord, ProbeRecord } from '../../contracts/system.js';
import { createApiClient } from '../../sdk/api-client.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('GET /health and GET / (spec A5, A6)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { ENABLED_PARTS: 'ussd' } });
  });
  afterAll(() => app.close());

  it('answers the probe record', async () => {
    const res = await app.request.get('/').expect(200);
    expect(ProbeRecord.parse(res.body)).toMatchObject({ status: 'ok', environment: 'test' });
    expect(res.body.message).toMatch(/running/);
  });

  it('is reachable through the typed client built from the same contract', async () => {
    const api = createApiClient(app.url);
    const res = await api.system.health();
    expect(res.status).toBe(200);
    if (res.status === 200) expect(res.body.database).toBe('connected');
  });

  it('gives every response a request id, and keeps a well-formed incoming one', async () => {
    const fresh = await app.request.get('/');
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await app.request.get('/').set('x-request-id', 'gw-123');
    expect(kept.headers['x-request-id']).toBe('gw-123');
    const replaced = await app.request.get('/').set('x-request-id', 'bad id {}');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with the JSON error shape', async () => {
    const res = await app.request.get('/no/such/route').expect(404);
    expect(res.body).toEqual({ code: 'not_found', message: 'No such route.', requestId: expect.any(String) });
  });

  it('serves Prometheus metrics', async () => {
    const res = await app.request.get('/metrics').expect(200);
    expect(res.text).toMatch(/process_cpu_user_seconds_total/);
  });
});

describe('GET /health when the database is unreachable', () => {
  it('answers 503 with database "disconnected"', async () => {
    await using app = await startTestApp({ env: { ENABLED_PARTS: 'ussd' } });
    await app.db.close();
    const res = await app.request.get('/health').expect(503);
    expect(HealthRecord.parse(res.body)).toMatchObject({ status: 'error', database: 'disconnected' });
  });
});
