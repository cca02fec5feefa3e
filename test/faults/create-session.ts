import { setTimeout as sleep } from 'node:timers/promises';
import type { OracleUser } from '../helpers/oracle/oracle-client.js';

/** A session for `user` on the instance at `baseUrl` (a 503 while its pool warms up is retried, as clients do). */
export async function createSession(baseUrl: string, user: OracleUser): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const r = await fetch(`${baseUrl}/sessions`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json' },
      body: '{}',
    });
    const body = (await r.json()) as { sessionId?: string };
    if (r.status === 201 && body.sessionId) return body.sessionId;
    if (r.status !== 503 || attempt >= 10) throw new Error(`POST /sessions answered ${r.status}`);
    await sleep(200);
  }
}
