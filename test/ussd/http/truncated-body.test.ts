import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/logger.js';
import { startTestApp } from '../../helpers/app.js';
import { ussdBody } from '../../helpers/ussd-dialog.js';
import { captureLogs } from '../../helpers/logs.js';

/** Sends a POST whose body is shorter than its Content-Length, then half-closes or resets the socket. */
function sendCutShort(port: number, how: 'end' | 'destroy'): Promise<string> {
  return new Promise((resolve) => {
    let reply = '';
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        'POST /api/ussd HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"sessionId":"cut",',
      );
      setTimeout(() => (how === 'end' ? socket.end() : socket.destroy()), 100);
    });
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(reply));
  });
}

describe('a body shorter than its Content-Length', () => {
  it('was logged as a server error: now a client error (4xx or no reply), logged at info, never counted as a failure', async () => {
    const { lines, stream: sink } = captureLogs();
    await using t = await startTestApp({
      db: 'none',
      logger: createLogger('info', sink),
      env: { ENABLED_PARTS: 'ussd', LOG_LEVEL: 'info' },
    });
    // Half-closed: Node's parser answers 400 itself. Reset: the client is gone, there is no one to answer.
    expect(await sendCutShort(t.server.port, 'end')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await sendCutShort(t.server.port, 'destroy')).toBe('');
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(
      lines.filter((l) => l.msg === 'ussd: request body cut short by the client').length,
    ).toBeGreaterThan(0);
    for (const l of lines.filter((x) => x.msg === 'ussd: request body cut short by the client')) {
      expect(l.level).toBe(30);
    }
    const metrics = (await t.request.get('/metrics').expect(200)).text;
    expect(metrics).not.toMatch(/ussd_requests_total\{route="session",outcome="error"[,}]/);
    // The gateway goes on serving.
    await t.request.post('/api/ussd').send(ussdBody()).expect(200);
  });
});
