// The fixture node's Cosmos tx service: GetTx from its store of transactions, and the development-only
// BroadcastTx that executes bank sends without checking signatures.
import { status as Status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MsgSend } from '../../../generated/proto/cosmos/bank/v1beta1/tx.js';
import { TxRaw } from '../../../generated/proto/cosmos/tx/v1beta1/tx.js';
import { createChainGrpcClient, type ChainGrpcClient } from '../../../server/chain-node/grpc-client.js';
import { startFixtureNode, type FixtureNode } from '../../../server/chain/fixture-node/fixture-node.js';
import { FIXTURE_START_BALANCE, txHashOf } from '../../../server/chain/fixture-node/tx-store.js';
import { createTxQueryClient, type TxQueryClient } from '../../../server/chain-node/tx-query-client.js';
import { sendTxBytes } from '../../helpers/chain-tx.js';

let node: FixtureNode;
let chain: ChainGrpcClient;
let tx: TxQueryClient;

beforeAll(async () => {
  node = await startFixtureNode({ publicBaseUrl: 'http://localhost:3000' });
  chain = createChainGrpcClient({ url: node.address });
  tx = createTxQueryClient(chain, { timeoutMs: 5000 });
});
afterAll(async () => {
  chain.close();
  await node.close();
});

describe('the fixture node serves cosmos.tx.v1beta1.Service', () => {
  it('BroadcastTx executes a send and keeps it; GetTx finds it by its SHA-256 hash, in any case', async () => {
    const bytes = sendTxBytes(
      [{ from: 'ixo1alice', to: 'ixo1bob', amount: [{ denom: 'uixo', amount: '1500' }] }],
      'rent',
    );
    const result = await tx.broadcastTx(bytes);
    expect(result).toMatchObject({ code: 0, txhash: txHashOf(bytes), height: String(node.data.height) });
    expect(result.txhash).toMatch(/^[0-9A-F]{64}$/);
    const found = await tx.getTx(result.txhash.toLowerCase());
    expect(found?.tx_response).toMatchObject({ code: 0, txhash: result.txhash });
    expect(found?.tx?.body?.memo).toBe('rent');
    const [message] = found?.tx?.body?.messages ?? [];
    expect(message?.type_url).toBe('/cosmos.bank.v1beta1.MsgSend');
    expect(MsgSend.decode(message?.value ?? new Uint8Array())).toEqual({
      from_address: 'ixo1alice',
      to_address: 'ixo1bob',
      amount: [{ denom: 'uixo', amount: '1500' }],
    });
    expect(node.transactions.balance('ixo1alice', 'uixo')).toBe(FIXTURE_START_BALANCE - 1500n);
    expect(TxRaw.decode(bytes).signatures).toHaveLength(1);
  });

  it('the same bytes again are refused (code 19) and a send over the balance is included as failed (code 5)', async () => {
    const bytes = sendTxBytes([
      { from: 'ixo1carol', to: 'ixo1bob', amount: [{ denom: 'uixo', amount: '1' }] },
    ]);
    expect((await tx.broadcastTx(bytes)).code).toBe(0);
    expect((await tx.broadcastTx(bytes)).code).toBe(19);
    const over = await tx.broadcastTx(
      sendTxBytes([
        {
          from: 'ixo1carol',
          to: 'ixo1bob',
          amount: [{ denom: 'uixo', amount: String(FIXTURE_START_BALANCE) }],
        },
      ]),
    );
    expect(over).toMatchObject({
      code: 5,
      codespace: 'sdk',
      raw_log: expect.stringContaining('insufficient funds'),
    });
    expect((await tx.getTx(over.txhash))?.tx_response?.code).toBe(5);
    expect(node.transactions.balance('ixo1carol', 'uixo')).toBe(FIXTURE_START_BALANCE - 1n);
  });

  it('an unknown hash is NotFound (undefined), a malformed one InvalidArgument, and so is a message it cannot execute', async () => {
    expect(await tx.getTx('AB'.repeat(32))).toBeUndefined();
    await expect(tx.getTx('xyz')).rejects.toMatchObject({ code: Status.INVALID_ARGUMENT });
    const notASend = TxRaw.encode({
      body_bytes: Buffer.from([10, 4, 10, 2, 47, 120]),
      auth_info_bytes: Buffer.alloc(0),
      signatures: [],
    }).finish();
    await expect(tx.broadcastTx(notASend)).rejects.toMatchObject({ code: Status.INVALID_ARGUMENT });
    await expect(tx.broadcastTx(Buffer.from('not protobuf at all'))).rejects.toMatchObject({
      code: Status.INVALID_ARGUMENT,
    });
  });
});
