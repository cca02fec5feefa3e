import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validators } from '../../../server/ussd/engine/validators.js';
import { isWeakPin } from '../../../server/ussd/engine/weak-pin.js';

describe('weak PINs', () => {
  it.each([
    '00000',
    '11111',
    '99999',
    '12345',
    '54321',
    '01234',
    '98765',
    '56789',
    '89012',
    '21098',
    '12121',
    '11222',
    '90909',
  ])('%s is weak', (pin) => expect(isWeakPin(pin)).toBe(true));

  it.each(['24680', '13579', '27149', '80417', '12346'])('%s is not weak', (pin) =>
    expect(isWeakPin(pin)).toBe(false),
  );

  it('refuses every PIN with one repeated digit and every run, in both directions', () => {
    for (let d = 0; d <= 9; d++) {
      expect(isWeakPin(String(d).repeat(5))).toBe(true);
      const up = [0, 1, 2, 3, 4].map((i) => (d + i) % 10).join('');
      const down = [0, 1, 2, 3, 4].map((i) => (d - i + 10) % 10).join('');
      expect([isWeakPin(up), isWeakPin(down)]).toEqual([true, true]);
    }
  });

  it('newPin: 5 digits, not weak; pin: any 5 digits', () => {
    expect(validators.newPin('12345')).toEqual({ ok: false, notice: 'pinWeak' });
    expect(validators.newPin('1234')).toEqual({ ok: false, notice: 'pinFormat' });
    expect(validators.newPin('24680')).toEqual({ ok: true, value: '24680' });
    expect(validators.pin('12345')).toEqual({ ok: true, value: '12345' });
    expect(validators.pin(' 2468')).toEqual({ ok: false, notice: 'pinFormat' });
  });
});

describe('names', () => {
  it.each([
    ['Jane Doe', 'Jane Doe'],
    ["  Mary   O'Brien-Wanjiku ", "Mary O'Brien-Wanjiku"],
    ['Zoë Ngũgĩ', 'Zoë Ngũgĩ'],
    ['Jo', 'Jo'],
  ])('accepts %j as %j', (raw, value) => expect(validators.fullName(raw)).toEqual({ ok: true, value }));

  it.each(['J', '', "'-", 'Jane2', 'Jane_Doe', 'a@b', 'A'.repeat(61)])('refuses %j', (raw) =>
    expect(validators.fullName(raw)).toEqual({ ok: false, notice: 'invalidName' }),
  );

  it('never throws and accepts only letters, spaces, apostrophes and hyphens', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (raw) => {
        const result = validators.fullName(raw);
        if (result.ok) expect(result.value).toMatch(/^[\p{L}\p{M}' ’-]{2,60}$/u);
      }),
    );
  });
});

describe('emails and customer IDs', () => {
  it.each(['jane@example.org', 'a.b+c@mail.co.ke'])('accepts the email %s', (raw) =>
    expect(validators.email(raw)).toEqual({ ok: true, value: raw }),
  );
  it.each(['jane@', 'jane@example', '@example.org', 'jane doe@example.org', `${'a'.repeat(50)}@example.org`])(
    'refuses the email %s',
    (raw) => expect(validators.email(raw)).toEqual({ ok: false, notice: 'invalidEmail' }),
  );
  it('normalises a customer ID to upper case, and refuses other shapes', () => {
    expect(validators.customerId(' c7k2m9q4x ')).toEqual({ ok: true, value: 'C7K2M9Q4X' });
    expect(validators.customerId('C7K2M9Q4')).toEqual({ ok: false, notice: 'invalidCustomerId' });
    expect(validators.customerId('D7K2M9Q4X')).toEqual({ ok: false, notice: 'invalidCustomerId' });
  });
});

describe('free text (validate: text with maxLength)', () => {
  it('accepts up to maxLength characters (counted as a handset counts them), spaces squeezed and trimmed', () => {
    expect(validators.text('  Great   service, asante!  ', { maxLength: 30 })).toEqual({
      ok: true,
      value: 'Great service, asante!',
    });
    expect(validators.text('ñ'.repeat(10), { maxLength: 10 })).toEqual({ ok: true, value: 'ñ'.repeat(10) });
  });
  it('refuses a longer answer with textTooLong naming the limit, and a blank one with textEmpty', () => {
    expect(validators.text('x'.repeat(11), { maxLength: 10 })).toEqual({
      ok: false,
      notice: 'textTooLong',
      params: { maxLength: '10' },
    });
    expect(validators.text('   ', { maxLength: 10 })).toEqual({ ok: false, notice: 'textEmpty' });
  });
  it('needs maxLength (the generator refuses validate: text without it)', () => {
    expect(() => validators.text('hello')).toThrow('validate: text needs maxLength');
  });
});
