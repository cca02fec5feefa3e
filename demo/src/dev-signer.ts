import type { SerializedUcan } from '@open-oracles/oracles-client-sdk';
import { delegate } from '@ucanto/core';
import type { Signer } from '@ucanto/interface';
import { ed25519 } from '@ucanto/principal';
import { ORACLE_CAPABILITIES } from '../../contracts/oracle.js';

/**
 * The seed of the demo's user key. It is published here, so anyone can act as this user: DEVELOPMENT ONLY.
 * A real app asks the user's wallet to sign (the same `delegate` call, with the wallet's key).
 */
const DEV_USER_SEED = 'open-oracles demo user: a published key, development only';

/** The demo user's signer (a did:key), derived in the browser from {@link DEV_USER_SEED}. */
export async function demoUser(): Promise<Signer> {
  const seed = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(DEV_USER_SEED));
  return ed25519.derive(new Uint8Array(seed));
}

const TTL_SECONDS = 3600;

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * The SDK's token callbacks for a user: real UCANs signed with ucanto in the browser, addressed to the oracle
 * (the audience the SDK names), serialized as the service reads them (base64 of the CAR archive).
 */
export function ucanCallbacks(user: Signer): {
  createDelegation: (oracleDid: string) => Promise<SerializedUcan>;
  createInvocation: (oracleDid: string) => Promise<SerializedUcan>;
} {
  const mint = async (oracleDid: string, capability: { can: string; with: string }) => {
    const expiration = Math.floor(Date.now() / 1000) + TTL_SECONDS;
    const token = await delegate({
      issuer: user,
      audience: { did: () => oracleDid as `did:${string}:${string}` },
      capabilities: [capability as { can: `${string}/${string}`; with: `${string}:${string}` }],
      expiration,
    });
    const archive = await token.archive();
    if (archive.error) throw archive.error;
    return { serialized: base64(archive.ok), expiresAt: expiration * 1000 };
  };
  return {
    createDelegation: (oracleDid) =>
      mint(oracleDid, { can: ORACLE_CAPABILITIES.delegation.can, with: user.did() }),
    createInvocation: (oracleDid) =>
      mint(oracleDid, { can: ORACLE_CAPABILITIES.invocation.can, with: oracleDid }),
  };
}

/** A bank send as the SDK's `useContractOracle` hands it to `transactSignX` (cosmjs's EncodeObject shape). */
interface SendMessage {
  typeUrl: string;
  value: { fromAddress: string; toAddress: string; amount: { denom: string; amount: string }[] };
}

/** The path of the development broadcast (the Cosmos REST shape; `npm run demo` serves it next to the page). */
export const DEV_BROADCAST_PATH = '/cosmos/tx/v1beta1/txs';

/**
 * A development wallet's `transactSignX`: encodes the bank sends as a real Cosmos transaction (TxRaw: TxBody with
 * each MsgSend as an Any, a fee, **no real signature**) and broadcasts it to the embedded fixture chain through the
 * development broadcast at `baseUrl` + {@link DEV_BROADCAST_PATH}. The fixture node executes it and keeps it, so
 * the oracle then finds the transaction by its hash. A real wallet signs with the user's key and broadcasts to a
 * real node; the fixture node is the only chain that accepts an unsigned transaction.
 */
export function devTransactSignX(
  baseUrl: string,
): (messages: readonly unknown[], memo?: string) => Promise<{ transactionHash: string }> {
  return async (messages, memo = '') => {
    const [{ MsgSend }, { AuthInfo, TxBody, TxRaw }] = await Promise.all([
      import('../../generated/proto/cosmos/bank/v1beta1/tx.js'),
      import('../../generated/proto/cosmos/tx/v1beta1/tx.js'),
    ]);
    // The generated types name Node's Buffer; the encoders take any Uint8Array, as the browser has.
    const bytes = (b: Uint8Array): Buffer => b as Buffer;
    const body = TxBody.encode({
      messages: (messages as readonly SendMessage[]).map((m) => {
        if (m.typeUrl !== '/cosmos.bank.v1beta1.MsgSend') {
          throw new Error(`the development wallet signs bank sends only, not ${m.typeUrl}`);
        }
        const send = {
          from_address: m.value.fromAddress,
          to_address: m.value.toAddress,
          amount: m.value.amount,
        };
        return { type_url: m.typeUrl, value: bytes(MsgSend.encode(send).finish()) };
      }),
      memo,
      timeout_height: '0',
    }).finish();
    const authInfo = AuthInfo.encode({
      fee: { amount: [{ denom: 'uixo', amount: '5000' }], gas_limit: '200000', payer: '', granter: '' },
    }).finish();
    const txBytes = TxRaw.encode({
      body_bytes: bytes(body),
      auth_info_bytes: bytes(authInfo),
      // Not a signature: random bytes the fixture node does not check, so that two equal payments are two
      // transactions (on a real chain the account's sequence, which the signature covers, does that).
      signatures: [bytes(crypto.getRandomValues(new Uint8Array(64)))],
    }).finish();
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}${DEV_BROADCAST_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tx_bytes: base64(txBytes), mode: 'BROADCAST_MODE_SYNC' }),
    });
    const answer = (await response.json()) as {
      tx_response?: { txhash: string; code: number; raw_log: string };
      message?: string;
    };
    const result = answer.tx_response;
    if (!response.ok || !result) throw new Error(`broadcast failed: ${answer.message ?? response.status}`);
    if (result.code !== 0) throw new Error(`the transaction failed (code ${result.code}): ${result.raw_log}`);
    return { transactionHash: result.txhash };
  };
}
