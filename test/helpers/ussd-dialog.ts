import { randomBytes } from 'node:crypto';
import type supertest from 'supertest';

/** One USSD session as a phone would run it: each input is appended to the accumulated `text` with `*`. */
export interface UssdDialog {
  readonly sessionId: string;
  readonly phoneNumber: string;
  /** The accumulated text sent so far. */
  readonly text: string;
  /** The initial dial (`text` empty). Returns the reply. */
  dial(): Promise<string>;
  /** Types one input. Returns the reply. */
  send(input: string): Promise<string>;
  /** Sends the current accumulated text again, as a gateway retry does. */
  resend(): Promise<string>;
}

/** A fresh dialog against an app; `form` posts form-encoded bodies the way Africa's Talking does. */
export function ussdDialog(
  agent: supertest.Agent,
  options: { phoneNumber?: string; form?: boolean; sessionId?: string } = {},
): UssdDialog {
  const sessionId = options.sessionId ?? `ATUid_${randomBytes(8).toString('hex')}`;
  const phoneNumber =
    options.phoneNumber ?? `+2547${randomBytes(4).readUInt32BE(0).toString().padStart(8, '0').slice(0, 8)}`;
  let text = '';
  const post = async (): Promise<string> => {
    const body = { sessionId, serviceCode: '*384*123#', phoneNumber, text };
    const req = agent.post('/api/ussd');
    const res = options.form
      ? await req.type('form').send({ ...body, networkCode: '63902' })
      : await req.send(body);
    if (res.status !== 200) throw new Error(`POST /api/ussd answered ${res.status}: ${res.text}`);
    return res.text;
  };
  return {
    sessionId,
    phoneNumber,
    get text() {
      return text;
    },
    dial() {
      text = '';
      return post();
    },
    send(input) {
      text = text === '' ? input : `${text}*${input}`;
      return post();
    },
    resend: post,
  };
}

/** A valid A1 body with a fresh session id; override any field. */
export function ussdBody(
  overrides: Partial<Record<'sessionId' | 'serviceCode' | 'phoneNumber' | 'text', string>> = {},
): { sessionId: string; serviceCode: string; phoneNumber: string; text: string } {
  return {
    sessionId: `test-${randomBytes(5).toString('hex')}`,
    serviceCode: '*384*123#',
    phoneNumber: '+254712345678',
    text: '',
    ...overrides,
  };
}
