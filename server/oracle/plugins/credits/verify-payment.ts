import { MsgSend } from '../../../../generated/proto/cosmos/bank/v1beta1/tx.js';
import type { GetTxResponse } from '../../../../generated/proto/cosmos/tx/v1beta1/service.js';
import { OracleHttpError } from '../../oracle-http-error.js';

/** Type URL of a bank send, the message a payment is. */
const MSG_SEND = '/cosmos.bank.v1beta1.MsgSend';

/**
 * What a payment must be: bound to the caller (its memo contains `memo`, or it is sent from `sender` when set),
 * to this account, in this denom, at least this amount.
 */
export interface ExpectedPayment {
  payTo: string;
  denom: string;
  /** What the client reported. */
  reported: { denom: string; amount: string };
  /** The account the caller's DID names (did:ixo:<address>), when it names one. */
  sender: string | undefined;
  /** The caller's payment reference (`paymentMemo`). */
  memo: string;
}

/** A payment the chain confirmed. */
export interface VerifiedPayment {
  /** What the transaction sent to `payTo` in `denom` (from `sender` when set), smallest unit. */
  paid: bigint;
  /** The account that sent it (the first send's sender). */
  from: string;
  height: string;
}

/** The account a DID names: `did:ixo:<bech32 address>` names one; did:key and entity DIDs do not. */
export function accountOfDid(did: string): string | undefined {
  return /^did:ixo:([a-z]{1,20}1[0-9a-z]{20,90})$/.exec(did)?.[1];
}

/**
 * Checks a transaction the chain returned against a reported payment: it succeeded (code 0); it is the caller's
 * (its memo contains the caller's payment reference, or the caller's DID names an account and the transaction
 * sends from it); and its bank sends to `payTo` in `denom` add up to at least the reported amount (only the sends
 * from the caller's account count when only the sender binds it). Throws the refusal otherwise: 422
 * `payment_failed`, or 422 `payment_mismatch` with `mismatch` naming what differs (`recipient`, `denom`,
 * `amount`, and `memo` for a caller with no account or `sender` for one with an account).
 *
 * Without the binding, whoever reported a public transaction first would be credited for it (issue 36): a
 * transaction on chain is public, and a did:key user names no account to compare its sender with.
 */
export function verifyPayment(found: GetTxResponse, expected: ExpectedPayment): VerifiedPayment {
  const result = found.tx_response;
  if (!result || !found.tx?.body) {
    throw new OracleHttpError(404, 'payment_not_found', 'The chain node does not know this transaction.');
  }
  if (result.code !== 0) {
    throw new OracleHttpError(
      422,
      'payment_failed',
      `The transaction failed on chain (code ${result.code}${result.codespace ? ` in ${result.codespace}` : ''}): it paid nothing.`,
    );
  }
  const sends: MsgSend[] = [];
  for (const any of found.tx.body.messages) {
    if (any.type_url !== MSG_SEND) continue;
    try {
      sends.push(MsgSend.decode(any.value));
    } catch {
      // A message that does not decode pays nothing.
    }
  }
  const toPayTo = sends.filter((s) => s.to_address === expected.payTo);
  const memoIsCallers = found.tx.body.memo.includes(expected.memo);
  const fromCallersAccount = expected.sender ? toPayTo.filter((s) => s.from_address === expected.sender) : [];
  // The memo binds the whole transaction to the caller; the sender binds only the sends from the caller.
  const fromCaller = memoIsCallers ? toPayTo : fromCallersAccount;
  const inDenom = (list: MsgSend[]): bigint =>
    list
      .flatMap((s) => s.amount)
      .filter((c) => c.denom === expected.denom && /^\d{1,40}$/.test(c.amount))
      .reduce((sum, c) => sum + BigInt(c.amount), 0n);
  const paid = inDenom(fromCaller);
  const reported = BigInt(expected.reported.amount);

  const problems: { what: 'recipient' | 'denom' | 'amount' | 'sender' | 'memo'; says: string }[] = [];
  if (toPayTo.length === 0) {
    problems.push({ what: 'recipient', says: `it sends nothing to ${expected.payTo}` });
  } else {
    if (fromCaller.length === 0) {
      problems.push(
        expected.sender
          ? {
              what: 'sender',
              says: `it is not sent from your account ${expected.sender} and its memo does not contain your payment reference ${expected.memo}`,
            }
          : { what: 'memo', says: `its memo does not contain your payment reference ${expected.memo}` },
      );
    }
    if (inDenom(toPayTo) === 0n) {
      problems.push({ what: 'denom', says: `it sends nothing in ${expected.denom}` });
    }
  }
  if (expected.reported.denom !== expected.denom && !problems.some((p) => p.what === 'denom')) {
    problems.push({
      what: 'denom',
      says: `payments are in ${expected.denom}, not ${expected.reported.denom}`,
    });
  }
  if (problems.length === 0 && paid < reported) {
    problems.push({
      what: 'amount',
      says: `it sends ${paid} ${expected.denom}, less than the ${reported} reported`,
    });
  }
  if (problems.length > 0) {
    throw new OracleHttpError(
      422,
      'payment_mismatch',
      `The transaction does not pay what was reported: ${problems.map((p) => p.says).join('; ')}.`,
      { mismatch: problems.map((p) => p.what) },
    );
  }
  return { paid, from: fromCaller[0]?.from_address ?? '', height: result.height };
}
