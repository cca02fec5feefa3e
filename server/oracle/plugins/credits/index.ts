import { createExpressEndpoints, initServer } from '@ts-rest/express';
import type { Request } from 'express';
import { creditsContract } from '../../../../contracts/credits.js';
import type { Price } from '../../../../contracts/oracle.js';
import { AuthError } from '../../auth/auth-error.js';
import { oracleErrorHandler } from '../../http/oracle-error.js';
import { OracleHttpError } from '../../oracle-http-error.js';
import { definePlugin, pluginConfig, type OraclePlugin, type PluginManifest } from '../../runtime/plugin.js';
import type { TxQueryClient } from '../../../chain-node/tx-query-client.js';
import { creditsConfig } from './config.js';
import { CreditsLedger, PaymentConflictError } from './ledger.js';
import { accountOfDid, verifyPayment } from './verify-payment.js';

export const creditsManifest: PluginManifest = {
  name: 'credits',
  title: 'Credits',
  summary:
    'Charges each turn in credits; an empty balance answers 402 with the unpaid claims until a payment.',
  visibility: 'silent',
  stability: 'beta',
  category: 'core',
  defaultOn: false,
  dependsOn: [],
  requiredEnv: [],
  config: creditsConfig,
};

/** The fixture oracle's admin account (fixtures/chain/entities.yaml): where embedded defaults send payments. */
export const FIXTURE_PAY_TO_ADDRESS = 'ixo1oracleadmin7d1e3c9a2bqqqqqqqqqqqqqqqq3xk2v';

/**
 * The credits plugin: a balance per user (CREDITS_INITIAL_BALANCE) debited by CREDITS_PRICE_PER_TURN for every
 * turn, streamed or not, before it starts. An empty balance answers 402 `{code: 'payment_required', message,
 * outstandingClaims}` (for a streamed request too, before any stream). `GET /credits` shows the account;
 * `POST /credits/payments` looks the transaction made through the SDK's `transactSignX` up on the chain node
 * (GetTx) and credits only a successful one that is bound to the caller (its memo contains the caller's
 * `paymentMemo`, or it is sent from the account the caller's DID names) and sends at least the reported amount,
 * in CREDITS_DENOM, to `payTo`, once per transaction.
 */
export function creditsPlugin(): OraclePlugin {
  let ledger: CreditsLedger | undefined;
  let price: Price = { amount: 0, denom: 'credits', per: 'turn' };
  let payTo = { address: FIXTURE_PAY_TO_ADDRESS, denom: 'uixo', creditsPerUnit: 0.001 };
  let chainTx: TxQueryClient | undefined;
  const ledgerOf = (): CreditsLedger => {
    if (!ledger) throw new Error('credits: not set up');
    return ledger;
  };
  return definePlugin({
    manifest: creditsManifest,
    setup: (ctx) => {
      const config = pluginConfig(ctx, creditsConfig);
      ledger = new CreditsLedger(ctx.db.kysely, ctx.identity.did, config.CREDITS_INITIAL_BALANCE);
      price = { amount: config.CREDITS_PRICE_PER_TURN, denom: 'credits', per: 'turn' };
      payTo = {
        address: config.CREDITS_PAY_TO_ADDRESS ?? FIXTURE_PAY_TO_ADDRESS,
        denom: config.CREDITS_DENOM,
        creditsPerUnit: config.CREDITS_PER_UNIT,
      };
      chainTx = ctx.chainTx;
      return Promise.resolve();
    },
    pricing: () => price,
    turnGuards: [
      async ({ userDid }) => {
        if (price.amount <= 0) return;
        const result = await ledgerOf().debit(userDid, price.amount);
        if (!result.ok) {
          throw new OracleHttpError(
            402,
            'payment_required',
            `Your credits do not cover this turn (${price.amount} credits). Pay to continue.`,
            { outstandingClaims: result.claims, paymentMemo: result.paymentMemo },
          );
        }
      },
    ],
    httpModules: [
      {
        name: 'CreditsHttpModule',
        paths: ['/credits'],
        register(router, { requireCaller }) {
          const s = initServer();
          const userOf = (locals: { auth?: { userDid: string } }): string => {
            if (!locals.auth) throw new AuthError('auth_missing');
            return locals.auth.userDid;
          };
          createExpressEndpoints(
            creditsContract,
            s.router(creditsContract, {
              account: async ({ res }) => {
                const userDid = userOf(res.locals);
                const [{ balance, paymentMemo }, outstandingClaims] = await Promise.all([
                  ledgerOf().account(userDid),
                  ledgerOf().outstanding(userDid),
                ]);
                return { status: 200, body: { balance, price, outstandingClaims, payTo, paymentMemo } };
              },
              pay: async ({ body, res }) => {
                const userDid = userOf(res.locals);
                const txHash = body.txHash.toUpperCase();
                try {
                  // The same transaction again credits nothing: its first answer for the same user, 409 for
                  // anyone else. Checked before the chain is asked, and again when the payment is recorded.
                  const first = await ledgerOf().recorded(userDid, txHash);
                  if (first) return { status: 200, body: first };
                  if (!chainTx) {
                    throw new OracleHttpError(
                      503,
                      'unavailable',
                      'No chain node is configured to verify payments.',
                    );
                  }
                  const found = await chainTx.getTx(txHash).catch((err: unknown) => {
                    // Anything but "not found" (unreachable, deadline, an error of the node): not verified yet.
                    res.locals.logger.warn(
                      { err, txHash },
                      'credits: the chain node did not answer a payment lookup',
                    );
                    throw new OracleHttpError(
                      503,
                      'unavailable',
                      'The chain node did not answer, so the payment could not be verified yet; retry shortly.',
                    );
                  });
                  if (!found) {
                    throw new OracleHttpError(
                      404,
                      'payment_not_found',
                      'The chain node does not know this transaction (yet): if it was just broadcast, retry in a few seconds.',
                    );
                  }
                  const verified = verifyPayment(found, {
                    payTo: payTo.address,
                    denom: payTo.denom,
                    reported: body.amount,
                    sender: accountOfDid(userDid),
                    memo: (await ledgerOf().account(userDid)).paymentMemo,
                  });
                  const result = await ledgerOf().pay(userDid, {
                    txHash,
                    denom: payTo.denom,
                    amount: String(verified.paid),
                    credits: Number(verified.paid) * payTo.creditsPerUnit,
                    sender: verified.from,
                    height: verified.height,
                  });
                  return { status: 200, body: result };
                } catch (err) {
                  if (err instanceof PaymentConflictError)
                    throw new OracleHttpError(
                      409,
                      'payment_conflict',
                      'Another user reported this transaction first.',
                    );
                  throw err;
                }
              },
            }),
            router,
            {
              logInitialization: false,
              globalMiddleware: [(req, res, next) => requireCaller(req as unknown as Request, res, next)],
              requestValidationErrorHandler: (err, req, res, next) =>
                oracleErrorHandler(err, req as Request, res, next),
            },
          );
        },
      },
    ],
  });
}
