import { describe, expect, it } from 'vitest';
import type { UssdSession } from '../../../server/ussd/engine/types.js';
import { createMemorySessionStore } from '../../../server/ussd/session/memory-session-store.js';
import { createSessionFlow, type EndedReply } from '../../../server/ussd/session/session-flow.js';
import { testEngine } from '../../helpers/engine-dialer.js';
import { createInMemoryAccountService } from '../../helpers/in-memory-account-service.js';

const PHONE = '+254700000042';
const LOCKED =
  'END Your account is locked after 3 wrong PINs. To unlock it, contact support on 0800 000 000.';

/** The session flow over the real engine and menus, with its stores at hand. */
function flow() {
  const accounts = createInMemoryAccountService();
  const sessions = createMemorySessionStore<UssdSession>();
  const ended = createMemorySessionStore<EndedReply>();
  const engine = testEngine({ accounts });
  const f = createSessionFlow({ engine, sessions, ended, ttlSeconds: 60 });
  const send = (sessionId: string, text: string) =>
    f.handle({ sessionId, serviceCode: '*384*123#', phoneNumber: PHONE, text });
  return { accounts, sessions, ended, send };
}

describe('session flow', () => {
  it('an ended session keeps its last reply for a retry, with typed PINs masked (they sat in memory in clear until expiry)', async () => {
    const { accounts, sessions, ended, send } = flow();
    const { customerId } = await accounts.createCustomer({
      fullName: 'Jane Doe',
      email: null,
      pin: '24680',
      phoneNumber: '+254700000099',
      language: 'en',
    });
    const texts = ['', '2', '2*1', `2*1*${customerId}`, `2*1*${customerId}*11111`];
    for (const text of texts) expect(await send('s1', text)).toMatch(/^CON /);
    await send('s1', `2*1*${customerId}*11111*22222`);
    const final = `2*1*${customerId}*11111*22222*33333`;
    expect(await send('s1', final)).toBe(LOCKED);

    expect(await sessions.get('s1')).toBeUndefined();
    const kept = await ended.get('s1');
    expect(kept).toEqual({ processedText: `2*1*•••••••••*•••••*•••••*•••••`, reply: LOCKED });
    for (const pin of ['11111', '22222', '33333']) expect(JSON.stringify(kept)).not.toContain(pin);

    // The gateway retries the final request: the same END, and the fourth PIN is never checked.
    const calls = accounts.calls.length;
    expect(await send('s1', final)).toBe(LOCKED);
    expect(accounts.calls.length).toBe(calls);
    // Another text for the ended session is a new dial's business, not a retry.
    expect(await send('s1', '')).toMatch(/^CON Welcome/);
  });
});
