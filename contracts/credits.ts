import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { OracleError } from './errors.js';
import { Price, type OracleRouteMetadata } from './oracle.js';

const c = initContract();
const ucan = { auth: 'ucan' } as const satisfies OracleRouteMetadata;

/** A coin amount as the chain writes it: an integer string in the smallest unit, and its denom. */
export const Coin = z.object({
  denom: z.string().regex(/^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/),
  amount: z.string().regex(/^\d{1,30}$/),
});
export type Coin = z.infer<typeof Coin>;

/**
 * The calling user's credits with this oracle (`GET /credits`): balance, the price of a turn, the unpaid
 * usage claims and where to pay.
 */
export const CreditsAccount = z.object({
  balance: z.number(),
  price: Price,
  /** Ids of the usage claims recorded while the balance did not cover a turn. */
  outstandingClaims: z.array(z.string()),
  /** Where `useContractOracle` sends a payment, and how many credits one unit of `denom` buys. */
  payTo: z.object({ address: z.string(), denom: z.string(), creditsPerUnit: z.number().min(0) }),
  /**
   * The caller's payment reference, the same on every call: the memo of a paying transaction must contain it.
   * It binds a payment to its payer, so that nobody else can report it: a `did:key` user is credited only for a
   * transaction whose memo contains it; a `did:ixo:<address>` user for one sent from that address or whose memo
   * contains it.
   */
  paymentMemo: z.string(),
});
export type CreditsAccount = z.infer<typeof CreditsAccount>;

/** Body of `POST /credits/payments`: a payment made on chain through `transactSignX`. */
export const PaymentReport = z
  .object({
    /** Hash of the transaction that paid (64 hex digits, any case); a payment is recorded once per hash. */
    txHash: z
      .string()
      .regex(/^[A-Fa-f0-9]{64}$/, 'txHash is the hex SHA-256 hash of the payment transaction'),
    amount: Coin,
  })
  .strict();
export type PaymentReport = z.infer<typeof PaymentReport>;

/** Credits plugin routes (`features.credits`), used by the SDK's `useContractOracle`. */
export const creditsContract = c.router(
  {
    account: {
      method: 'GET',
      path: '/credits',
      summary: "The calling user's balance, the price of a turn and the unpaid claims",
      metadata: ucan,
      responses: { 200: CreditsAccount, 401: OracleError, 503: OracleError },
    },
    pay: {
      method: 'POST',
      path: '/credits/payments',
      summary: 'Verifies a payment on chain, then credits the balance and settles the outstanding claims',
      description:
        'The oracle looks the transaction up on the chain node (cosmos.tx.v1beta1.Service/GetTx) and credits only ' +
        'a successful one (code 0) that is bound to the caller and whose bank sends to `payTo.address` in ' +
        '`payTo.denom` add up to at least `amount`; it credits what the transaction sent. Bound to the caller: ' +
        "its memo contains the caller's `paymentMemo` (from `GET /credits` or the 402 body), or, for a caller " +
        'whose DID is `did:ixo:<address>`, it is sent from that address (then only the sends from it count). ' +
        'Unknown to the node (maybe still pending: retry shortly): 404 `payment_not_found`. Failed on chain: ' +
        '422 `payment_failed`. Not bound to the caller (`memo`, or `sender` for a did:ixo caller), or a wrong ' +
        'recipient, denom or amount: 422 `payment_mismatch` with `mismatch` naming what differs. The same txHash again credits nothing: ' +
        'the first answer again for the same user, 409 `payment_conflict` for anyone else. Every refusal ' +
        'writes nothing.',
      metadata: ucan,
      body: PaymentReport,
      responses: {
        200: z.object({ balance: z.number(), settledClaims: z.array(z.string()) }),
        400: OracleError,
        401: OracleError,
        404: OracleError,
        409: OracleError,
        422: OracleError,
        503: OracleError,
      },
    },
  },
  { strictStatusCodes: true },
);
