import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.js';
import { startTestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/logs.js';
import { ussdBody } from '../helpers/ussd-dialog.js';

// Issue 14 item 7: every log line written while handling a request carries its request id, also after the
// body was parsed and from deep inside the USSD engine. The request's logger is handed down explicitly
// (res.locals.logger); AsyncLocalStorage was dropped for its cost on every promise (issue 23).

describe('request ids in the logs', () => {
  it('every line written while handling a request carries its id, from the router, /health and the engine', async () => {
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
    // Text for a session that never started: the engine itself logs, through the request's logger.
    const expired = await t.request
      .post('/api/ussd')
      .set('x-request-id', 'req-ussd-2')
      .send(ussdBody({ text: '1' }))
      .expect(200);
    expect(expired.text).toBe('END Your session has expired. Please dial again.');
    await new Promise((r) => setTimeout(r, 50));
    const during = lines.slice(before);
    const byId = (id: string) => during.filter((l) => l['requestId'] === id);
    expect(byId('req-health-1').map((l) => l['msg'])).toContain('health: database unreachable');
    expect(byId('req-ussd-1').map((l) => l['msg'])).toContain('ussd request failed');
    expect(byId('req-ussd-2').map((l) => l['msg'])).toContain(
      'ussd: text for an unknown or expired session; answering that it expired',
    );
    for (const line of during) expect(line['requestId']).toMatch(/^req-(health-1|ussd-1|ussd-2)$/);
  });
});
