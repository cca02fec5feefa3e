import { createHash } from 'node:crypto';
import { status as Status } from '@grpc/grpc-js';
import type { TxResponse } from '../../../generated/proto/cosmos/base/abci/v1beta1/abci.js';
import { MsgSend } from '../../../generated/proto/cosmos/bank/v1beta1/tx.js';
import type { GetTxResponse } from '../../../generated/proto/cosmos/tx/v1beta1/service.js';
import { AuthInfo, Tx, TxBody, TxRaw } from '../../../generated/proto/cosmos/tx/v1beta1/tx.js';
import { ChainError } from '../chain-error.js';

/** Type URL of the only message the fixture node executes. */
const MSG_SEND_TYPE_URL = '/cosmos.bank.v1beta1.MsgSend';
/** Every account of the fixture chain starts with this much of every denom (a development faucet). */
export const FIXTURE_START_BALANCE = 10_000_000_000n;
/** ABCI code of a transaction the fixture node has seen before (the SDK's ErrTxInMempoolCache). */
const CODE_TX_KNOWN = 19;
/** ABCI code of a send over the sender's balance (the SDK's ErrInsufficientFunds). */
const CODE_INSUFFICIENT_FUNDS = 5;

/** A transaction hash as the chain writes it: SHA-256 of the TxRaw bytes, upper-case hex. */
export function txHashOf(txBytes: Uint8Array): string {
  return createHash('sha256').update(txBytes).digest('hex').toUpperCase();
}

/**
 * The fixture node's transactions: what its `cosmos.tx.v1beta1.Service` serves. `broadcast` is the
 * development-only way in: it executes the bank sends of a TxRaw **without checking signatures** (the fixture
 * chain has no keys), against balances that start at {@link FIXTURE_START_BALANCE} for every account and
 * denom, and includes the transaction at the node's latest height, successful or failed (code 5, insufficient
 * funds), as a block would. A real node, which checks signatures, is never this store.
 */
export class TxStore {
  private readonly txs = new Map<string, GetTxResponse>();
  private readonly spent = new Map<string, bigint>();

  constructor(private readonly height: () => bigint) {}

  /** The transaction with this hash (hex, any case), as GetTx answers it; NotFound when unknown. */
  get(hash: string): GetTxResponse {
    if (!/^[0-9A-Fa-f]{64}$/.test(hash)) {
      throw new ChainError(
        Status.INVALID_ARGUMENT,
        `invalid tx hash ${JSON.stringify(hash)}: want 64 hex digits`,
      );
    }
    const found = this.txs.get(hash.toUpperCase());
    if (!found) throw new ChainError(Status.NOT_FOUND, `tx not found: ${hash.toUpperCase()}`);
    return found;
  }

  /** The balance of an account in a denom. */
  balance(address: string, denom: string): bigint {
    return FIXTURE_START_BALANCE - (this.spent.get(`${address}|${denom}`) ?? 0n);
  }

  /** Executes and includes a TxRaw (development only: signatures are not checked). */
  broadcast(txBytes: Uint8Array): TxResponse {
    const hash = txHashOf(txBytes);
    let raw: TxRaw;
    let body: TxBody;
    let authInfo: AuthInfo;
    try {
      raw = TxRaw.decode(txBytes);
      body = TxBody.decode(raw.body_bytes);
      authInfo = AuthInfo.decode(raw.auth_info_bytes);
    } catch (err) {
      throw new ChainError(Status.INVALID_ARGUMENT, 'tx parse error: the bytes are not a TxRaw', {
        cause: err,
      });
    }
    if (body.messages.length === 0)
      throw new ChainError(Status.INVALID_ARGUMENT, 'must contain at least one message');
    const sends = body.messages.map((any) => {
      if (any.type_url !== MSG_SEND_TYPE_URL) {
        throw new ChainError(
          Status.INVALID_ARGUMENT,
          `the fixture node executes only ${MSG_SEND_TYPE_URL}, not ${any.type_url}`,
        );
      }
      return MsgSend.decode(any.value);
    });
    const base = {
      height: String(this.height()),
      txhash: hash,
      data: '',
      info: '',
      gas_wanted: '200000',
      gas_used: '0',
    };
    if (this.txs.has(hash)) {
      return {
        ...base,
        codespace: 'sdk',
        code: CODE_TX_KNOWN,
        raw_log: 'tx already exists in cache',
        timestamp: '',
        tx: undefined,
      };
    }
    // All or nothing, as a block executes a transaction.
    const debits = new Map<string, bigint>();
    let failure: string | undefined;
    sends.forEach((send, index) => {
      for (const coin of send.amount) {
        if (!/^\d{1,40}$/.test(coin.amount)) {
          throw new ChainError(Status.INVALID_ARGUMENT, `invalid coin amount ${JSON.stringify(coin.amount)}`);
        }
        const key = `${send.from_address}|${coin.denom}`;
        const total = (debits.get(key) ?? 0n) + BigInt(coin.amount);
        debits.set(key, total);
        const has = this.balance(send.from_address, coin.denom);
        if (failure === undefined && total > has) {
          failure = `failed to execute message; message index: ${index}: spendable balance ${has}${coin.denom} is smaller than ${total}${coin.denom}: insufficient funds`;
        }
      }
    });
    if (failure === undefined) {
      for (const [key, amount] of debits) this.spent.set(key, (this.spent.get(key) ?? 0n) + amount);
    }
    const tx: Tx = { body, auth_info: authInfo, signatures: raw.signatures };
    const response: TxResponse = {
      ...base,
      gas_used: '80000',
      codespace: failure === undefined ? '' : 'sdk',
      code: failure === undefined ? 0 : CODE_INSUFFICIENT_FUNDS,
      raw_log: failure ?? '',
      tx: { type_url: '/cosmos.tx.v1beta1.Tx', value: Buffer.from(Tx.encode(tx).finish()) },
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    this.txs.set(hash, { tx, tx_response: response });
    return response;
  }
}
