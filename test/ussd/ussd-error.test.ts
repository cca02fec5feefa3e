import { describe, expect, it } from 'vitest';
import { USSD_INVALID_INPUT_REPLY, USSD_UNAVAILABLE_REPLY } from '../../contracts/ussd.js';
import { StoreTimeoutError } from '../../server/with-timeout.js';
import { USSD_ERROR_CODES, USSD_ERROR_REPLIES, UssdError } from '../../server/ussd/ussd-error.js';

describe('UssdError', () => {
  it('answers every code with a reply of the spec (section 7 A)', () => {
    expect(Object.keys(USSD_ERROR_REPLIES).sort()).toEqual([...USSD_ERROR_CODES].sort());
    expect(USSD_ERROR_REPLIES.invalid_input).toEqual({ reply: USSD_INVALID_INPUT_REPLY, outcome: 'invalid' });
    expect(USSD_ERROR_REPLIES.unavailable).toEqual({ reply: USSD_UNAVAILABLE_REPLY, outcome: 'error' });
    expect(USSD_ERROR_REPLIES.internal).toEqual({ reply: USSD_UNAVAILABLE_REPLY, outcome: 'error' });
  });

  it.each([
    [
      'a body parser error (4xx status)',
      Object.assign(new Error('bad json'), { status: 400 }),
      'invalid_input',
    ],
    ['a body too large', Object.assign(new Error('too large'), { status: 413 }), 'invalid_input'],
    ['a store timeout', new StoreTimeoutError('redis GET timed out'), 'unavailable'],
    ['a refused connection', Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }), 'unavailable'],
    ['anything else', new Error('bug'), 'internal'],
    ['a thrown string', 'oops', 'internal'],
  ])('normalises %s, keeping it as cause', (_name, thrown, code) => {
    const error = UssdError.from(thrown);
    expect(error.code).toBe(code);
    expect(error.cause).toBe(thrown);
    expect(UssdError.from(error)).toBe(error);
  });
});
