import { describe, expect, it } from 'vitest';
import { startTestApp } from '../../helpers/app.js';
import { scriptedUssdPart } from '../../helpers/scripted-test-engine.js';
import { ussdBody } from '../../helpers/ussd-dialog.js';

/**
 * The value of one sample line of the Prometheus text format, e.g. `name{a="b"} 3`, without the
 * `instance_id` label every series carries (server.ts).
 */
function sample(text: string, series: string): number | undefined {
  const line = text
    .split('\n')
    .map((l) => l.replace(/,instance_id="[^"]*"|instance_id="[^"]*",?/, '').replace('{} ', ' '))
    .find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics (the app’s own registry)', () => {
  it('counts USSD requests by route and outcome, times them, and reports active sessions', async () => {
    await using t = await startTestApp({
      db: 'none',
      parts: { ussd: scriptedUssdPart() },
      env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '20' },
    });
    const a = ussdBody();
    const b = ussdBody();
    await t.request.post('/api/ussd').send(a).expect(200);
    await t.request
      .post('/api/ussd')
      .send({ ...a, text: '1' })
      .expect(200);
    await t.request.post('/api/ussd').send(b).expect(200);
    await t.request
      .post('/api/ussd')
      .send({ ...b, text: '*' })
      .expect(200, 'END Goodbye');
    await t.request.post('/api/ussd').send({ bad: true }).expect(200);
    await t.request
      .post('/api/ussd')
      .send({ ...ussdBody(), text: 'boom' })
      .expect(200);
    await t.request.get(`/api/ussd/debug/${a.sessionId}`).expect(200);
    await t.request.get('/api/ussd/debug/nope').expect(404);
    await t.request.get('/api/ussd/sessions').expect(200);

    const text = (await t.request.get('/metrics').expect(200)).text;
    const count = (route: string, outcome: string) =>
      sample(text, `ussd_requests_total{route="${route}",outcome="${outcome}"}`);
    expect(count('session', 'CON')).toBe(3);
    expect(count('session', 'END')).toBe(1);
    expect(count('session', 'invalid')).toBe(1);
    expect(count('session', 'error')).toBe(1);
    expect(count('debug', 'ok')).toBe(1);
    expect(count('debug', 'not_found')).toBe(1);
    expect(count('sessions', 'ok')).toBe(1);
    expect(sample(text, 'ussd_request_duration_seconds_count{route="session",outcome="CON"}')).toBe(3);
    expect(sample(text, 'ussd_request_duration_seconds_bucket{le="2.5",route="session",outcome="CON"}')).toBe(
      3,
    );
    expect(sample(text, 'ussd_active_sessions')).toBe(1);

    for (let i = 0; i < 16; i++) await t.request.post('/api/ussd').send(ussdBody());
    const later = (await t.request.get('/metrics').expect(200)).text;
    expect(sample(later, 'ussd_requests_total{route="session",outcome="rate_limited"}')).toBeGreaterThan(0);
  });
});
