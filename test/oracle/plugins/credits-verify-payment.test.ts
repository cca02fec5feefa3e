import { describe, expect, it } from 'vitest';
import { MsgSend } from '../../../generated/proto/cosmos/bank/v1beta1/tx.js';
import { GetTxResponse } from '../../../generated/proto/cosmos/tx/v1beta1/service.js';
import { OracleHttpError } from '../../../server/oracle/oracle-http-error.js';
import {
  accountOfDid,
  verifyPayment,
  type ExpectedPayment,
} from '../../../server/oracle/plugins/credits/verify-payment.js';

// The payment check of the credits plugin on transactions built here (test/security/payments.test.ts drives the
// same check end to end through the fixture chain). Each case is a transaction an attacker or a buggy wallet
// could report: what it must be credited, or the exact refusal.

const PAY_TO = 'ixo1payto0000000000000000000000000000000';
const CALLER = 'ixo1caller000000000000000000000000000000';
const OTHER = 'ixo1other0000000000000000000000000000000';
/** The caller's payment reference; the transactions built here carry it unless a test says otherwise. */
const REF = 'pay_0123456789abcdef0123456789abcdef';

interface Send {
  from?: string;
  to?: string;
  coins: [string, string][];
}

function tx(
  sends: (Send | { typeUrl: string; value: Uint8Array })[],
  code = 0,
  codespace = '',
  memo = REF,
): GetTxResponse {
  const messages = sends.map((s) =>
    'typeUrl' in s
      ? { type_url: s.typeUrl, value: Buffer.from(s.value) }
      : {
          type_url: '/cosmos.bank.v1beta1.MsgSend',
          value: Buffer.from(
            MsgSend.encode({
              from_address: s.from ?? CALLER,
              to_address: s.to ?? PAY_TO,
              amount: s.coins.map(([amount, denom]) => ({ amount, denom })),
            }).finish(),
          ),
        },
  );
  return GetTxResponse.fromPartial({
    tx: { body: { messages, memo } },
    tx_response: { code, codespace, height: '42' },
  });
}

const expected = (reported: [string, string], sender?: string): ExpectedPayment => ({
  payTo: PAY_TO,
  denom: 'uixo',
  reported: { amount: reported[0], denom: reported[1] },
  sender,
  memo: REF,
});

function refusal(fn: () => unknown): { status: number; code: string; message: string; mismatch?: unknown } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(OracleHttpError);
    const e = err as OracleHttpError;
    return {
      status: e.status,
      code: e.code,
      message: e.message,
      ...(e.extra.mismatch === undefined ? {} : { mismatch: e.extra.mismatch }),
    };
  }
  throw new Error('expected a refusal');
}

describe('verifyPayment', () => {
  it('credits what the sends to payTo in the denom add up to, from the first send’s sender, at the tx height', () => {
    const found = tx([
      { coins: [['300', 'uixo']] },
      {
        coins: [
          ['200', 'uixo'],
          ['999', 'uatom'],
        ],
      },
      { to: OTHER, coins: [['5000', 'uixo']] },
    ]);
    expect(verifyPayment(found, expected(['500', 'uixo']))).toEqual({
      paid: 500n,
      from: CALLER,
      height: '42',
    });
    // Reporting less than was paid is fine; what is credited is what was sent.
    expect(verifyPayment(found, expected(['1', 'uixo'])).paid).toBe(500n);
  });

  it('exactly the reported amount is enough; one less is an amount mismatch with both numbers', () => {
    const found = tx([{ coins: [['1000', 'uixo']] }]);
    expect(verifyPayment(found, expected(['1000', 'uixo'])).paid).toBe(1000n);
    expect(refusal(() => verifyPayment(found, expected(['1001', 'uixo'])))).toEqual({
      status: 422,
      code: 'payment_mismatch',
      message:
        'The transaction does not pay what was reported: it sends 1000 uixo, less than the 1001 reported.',
      mismatch: ['amount'],
    });
  });

  it('amounts beyond 2^53 are added exactly', () => {
    const big = '123456789012345678901234567890';
    const found = tx([{ coins: [[big, 'uixo']] }, { coins: [['1', 'uixo']] }]);
    expect(verifyPayment(found, expected([big, 'uixo'])).paid).toBe(BigInt(big) + 1n);
  });

  it('coins that are not a plain amount of digits pay nothing', () => {
    const found = tx([
      {
        coins: [
          ['-5', 'uixo'],
          ['1e3', 'uixo'],
          ['12 ', 'uixo'],
          ['7', 'uixo'],
        ],
      },
    ]);
    expect(verifyPayment(found, expected(['7', 'uixo'])).paid).toBe(7n);
    expect(
      verifyPayment(
        tx([
          {
            coins: [
              ['1'.repeat(41), 'uixo'],
              ['7', 'uixo'],
            ],
          },
        ]),
        expected(['7', 'uixo']),
      ).paid,
    ).toBe(7n);
  });

  it('other messages, and sends that do not decode, pay nothing', () => {
    const found = tx([
      {
        typeUrl: '/cosmos.staking.v1beta1.MsgDelegate',
        value: MsgSend.encode({
          from_address: CALLER,
          to_address: PAY_TO,
          amount: [{ denom: 'uixo', amount: '9000' }],
        }).finish(),
      },
      { typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: Uint8Array.of(0x0a, 0xff, 0xff) },
      { coins: [['10', 'uixo']] },
    ]);
    expect(verifyPayment(found, expected(['10', 'uixo'])).paid).toBe(10n);
    expect(refusal(() => verifyPayment(found, expected(['11', 'uixo']))).mismatch).toEqual(['amount']);
  });

  it('a failed transaction: 422 payment_failed naming its code and codespace', () => {
    expect(
      refusal(() => verifyPayment(tx([{ coins: [['10', 'uixo']] }], 5, 'sdk'), expected(['10', 'uixo']))),
    ).toEqual({
      status: 422,
      code: 'payment_failed',
      message: 'The transaction failed on chain (code 5 in sdk): it paid nothing.',
    });
    expect(
      refusal(() => verifyPayment(tx([{ coins: [['10', 'uixo']] }], 11), expected(['10', 'uixo']))).message,
    ).toBe('The transaction failed on chain (code 11): it paid nothing.');
  });

  it('a response without the transaction or its result: 404 payment_not_found', () => {
    const full = tx([{ coins: [['10', 'uixo']] }]);
    for (const found of [
      GetTxResponse.fromPartial({ tx_response: { code: 0, height: '1' } }),
      GetTxResponse.fromPartial({ tx: { body: { messages: [] } } }),
      GetTxResponse.fromPartial({ tx: {}, tx_response: { code: 0, height: '1' } }),
    ]) {
      expect(refusal(() => verifyPayment(found, expected(['10', 'uixo'])))).toEqual({
        status: 404,
        code: 'payment_not_found',
        message: 'The chain node does not know this transaction.',
      });
    }
    expect(verifyPayment(full, expected(['10', 'uixo'])).paid).toBe(10n);
  });

  it('nothing to payTo: a recipient mismatch only, even in another denom', () => {
    expect(
      refusal(() => verifyPayment(tx([{ to: OTHER, coins: [['10', 'uatom']] }]), expected(['10', 'uixo']))),
    ).toEqual({
      status: 422,
      code: 'payment_mismatch',
      message: `The transaction does not pay what was reported: it sends nothing to ${PAY_TO}.`,
      mismatch: ['recipient'],
    });
    expect(refusal(() => verifyPayment(tx([]), expected(['10', 'uixo']))).mismatch).toEqual(['recipient']);
  });

  it('to payTo but in another denom: a denom mismatch, and no amount complaint on top', () => {
    expect(
      refusal(() => verifyPayment(tx([{ coins: [['10', 'uatom']] }]), expected(['10', 'uixo']))),
    ).toEqual({
      status: 422,
      code: 'payment_mismatch',
      message: 'The transaction does not pay what was reported: it sends nothing in uixo.',
      mismatch: ['denom'],
    });
  });

  it('a report in another denom than the plugin’s: a denom mismatch (once, however many reasons)', () => {
    expect(
      refusal(() => verifyPayment(tx([{ coins: [['10', 'uixo']] }]), expected(['10', 'uatom']))),
    ).toEqual({
      status: 422,
      code: 'payment_mismatch',
      message: 'The transaction does not pay what was reported: payments are in uixo, not uatom.',
      mismatch: ['denom'],
    });
    expect(
      refusal(() => verifyPayment(tx([{ coins: [['10', 'uatom']] }]), expected(['10', 'uatom']))),
    ).toMatchObject({
      message: 'The transaction does not pay what was reported: it sends nothing in uixo.',
      mismatch: ['denom'],
    });
  });

  it('a caller whose DID names an account, without their reference in the memo: only its own sends count', () => {
    const sends = [
      { from: OTHER, coins: [['1000', 'uixo']] },
      { from: CALLER, coins: [['10', 'uixo']] },
    ] satisfies Send[];
    const found = tx(sends, 0, '', '');
    expect(verifyPayment(found, expected(['10', 'uixo'], CALLER))).toEqual({
      paid: 10n,
      from: CALLER,
      height: '42',
    });
    expect(refusal(() => verifyPayment(found, expected(['11', 'uixo'], CALLER))).message).toBe(
      'The transaction does not pay what was reported: it sends 10 uixo, less than the 11 reported.',
    );
    // Bound by the memo, with no account to hold to, the first send's sender is reported and every send counts.
    expect(verifyPayment(tx(sends), expected(['1010', 'uixo']))).toEqual({
      paid: 1010n,
      from: OTHER,
      height: '42',
    });
  });

  it('a caller whose account sent nothing to payTo, without their reference: a sender mismatch, with the denom one when it applies', () => {
    const fromOther = tx([{ from: OTHER, coins: [['1000', 'uixo']] }], 0, '', '');
    expect(refusal(() => verifyPayment(fromOther, expected(['10', 'uixo'], CALLER)))).toEqual({
      status: 422,
      code: 'payment_mismatch',
      message: `The transaction does not pay what was reported: it is not sent from your account ${CALLER} and its memo does not contain your payment reference ${REF}.`,
      mismatch: ['sender'],
    });
    const fromOtherInAtom = tx([{ from: OTHER, coins: [['1000', 'uatom']] }], 0, '', 'pay_someone');
    expect(refusal(() => verifyPayment(fromOtherInAtom, expected(['10', 'uixo'], CALLER)))).toMatchObject({
      message: `The transaction does not pay what was reported: it is not sent from your account ${CALLER} and its memo does not contain your payment reference ${REF}; it sends nothing in uixo.`,
      mismatch: ['sender', 'denom'],
    });
  });

  it('a caller whose DID names an account: their reference in the memo binds a payment sent from elsewhere, and every send to payTo counts', () => {
    const found = tx([
      { from: OTHER, coins: [['1000', 'uixo']] },
      { from: CALLER, coins: [['10', 'uixo']] },
    ]);
    expect(verifyPayment(found, expected(['1010', 'uixo'], CALLER))).toEqual({
      paid: 1010n,
      from: OTHER,
      height: '42',
    });
    // Without the reference only the caller's own send counts.
    const noMemo = tx(
      [
        { from: OTHER, coins: [['1000', 'uixo']] },
        { from: CALLER, coins: [['10', 'uixo']] },
      ],
      0,
      '',
      '',
    );
    expect(verifyPayment(noMemo, expected(['10', 'uixo'], CALLER)).paid).toBe(10n);
  });

  // Issue 36, finding 1: a did:key user names no account, so before the reference anyone's public payment to
  // payTo was credited to whoever reported it first.
  it('a caller whose DID names no account: only a transaction whose memo contains their reference is theirs', () => {
    const someoneElses = tx(
      [{ from: OTHER, coins: [['1000', 'uixo']] }],
      0,
      '',
      'pay_ffffffffffffffffffffffffffffffff',
    );
    expect(refusal(() => verifyPayment(someoneElses, expected(['1000', 'uixo'])))).toEqual({
      status: 422,
      code: 'payment_mismatch',
      message: `The transaction does not pay what was reported: its memo does not contain your payment reference ${REF}.`,
      mismatch: ['memo'],
    });
    expect(
      refusal(() => verifyPayment(tx([{ coins: [['1000', 'uixo']] }], 0, '', ''), expected(['1000', 'uixo'])))
        .mismatch,
    ).toEqual(['memo']);
    // The reference anywhere in the memo binds it (a wallet or an app may add words of its own).
    const withWords = tx([{ from: OTHER, coins: [['1000', 'uixo']] }], 0, '', `subscription ${REF} (June)`);
    expect(verifyPayment(withWords, expected(['1000', 'uixo'])).paid).toBe(1000n);
  });

  it('a report in another denom is named beside any other problem', () => {
    expect(
      refusal(() => verifyPayment(tx([{ to: OTHER, coins: [['10', 'uixo']] }]), expected(['10', 'uatom']))),
    ).toEqual({
      status: 422,
      code: 'payment_mismatch',
      message: `The transaction does not pay what was reported: it sends nothing to ${PAY_TO}; payments are in uixo, not uatom.`,
      mismatch: ['recipient', 'denom'],
    });
  });
});

describe('accountOfDid', () => {
  it('did:ixo:<bech32 address> names the address; anything else names none', () => {
    expect(accountOfDid(`did:ixo:${CALLER}`)).toBe(CALLER);
    for (const did of [
      'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      `did:ixo:entity:${'a'.repeat(32)}`,
      `did:ixo:${CALLER}x!`,
      `xdid:ixo:${CALLER}`,
      `did:ixo:${CALLER.toUpperCase()}`,
      'did:ixo:ixo1short',
      `did:ixo:ixo1${'a'.repeat(91)}`,
      `did:ixo:${'a'.repeat(21)}1${'b'.repeat(30)}`,
    ]) {
      expect(accountOfDid(did), did).toBeUndefined();
    }
    expect(accountOfDid(`did:ixo:ixo1${'a'.repeat(20)}`)).toBe(`ixo1${'a'.repeat(20)}`);
    expect(accountOfDid(`did:ixo:ixo1${'a'.repeat(90)}`)).toBe(`ixo1${'a'.repeat(90)}`);
  });
});
