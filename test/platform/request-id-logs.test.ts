import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.js';
import { startTestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/logs.js';
import { ussdBody } from '../helpers/ussd-dialog.js';

// Issue 14 item 7: every log line written while handling a request carries its request id, whichever module
// writes it (AsyncLocalStorage + the logger's mixin), also after the body was parsed.

describe('request ids in the logs', () => {
  it('every line written while handling a request carries its id, from the shared logger too', async () => {
    const { lines, stream } = captureLogs();
    // No database: the USSD dial and /health both fail and log, from the router and from the health check.
    await using t = await startTestApp({
      db: 'none',
      env: { ENABLED_PARTS: 'ussd', REDIS_URL: '' },
      logger: createLogger('info', stream),
    });
    const before = lines.length;
    const health = await t.request.get('/health').set('x-request-id', 'req-health-1').expect(503);
    expect(health.headers['x-request-id']).toBe('req-health-1');
    const ussd = await t.request
      .post('/api/ussd')
      .set('x-request-id', 'req-ussd-1')
      .send(ussdBody())
      .expect(200);
    expect(ussd.text).toMatch(/^END /);
    await new Promise((r) => setTimeout(r, 50));
    const during = lines.slice(before);
    const byId = (id: string) => during.filter((l) => l['requestId'] === id);
    expect(byId('req-health-1').map((l) => l['msg'])).toContain('health: database unreachable');
    expect(byId('req-ussd-1').map((l) => l['msg'])).toContain('ussd request failed');
    for (const line of during) expect(line['requestId']).toMatch(/^req-(health|ussd)-1$/);
  });
});
