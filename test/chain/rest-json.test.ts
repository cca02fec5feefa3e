import { describe, expect, it } from 'vitest';
import { ENUMS, MESSAGES } from '../../generated/proto/chain-descriptor.js';
import { Claim } from '../../generated/proto/ixo/claims/v1beta1/claims.js';
import { QueryClaimListResponse } from '../../generated/proto/ixo/claims/v1beta1/query.js';
import { VerificationMethod } from '../../generated/proto/ixo/iid/v1beta1/types.js';
import { fromRestJson } from '../../server/chain/rest-json-read.js';
import { toRestJson } from '../../server/chain/rest-json.js';

describe('toRestJson (Cosmos REST JSON from decoded messages)', () => {
  it('emits every field with its default, in declaration order, with proto field names as keys', () => {
    const json = toRestJson('ixo.claims.v1beta1.Claim', Claim.decode(Claim.encode(Claim.create()).finish()));
    expect(JSON.stringify(json)).toBe(
      JSON.stringify({
        collection_id: '',
        agent_did: '',
        agent_address: '',
        submission_date: null,
        claim_id: '',
        evaluation: null,
        payments_status: null,
        use_intent: false,
        amount: [],
        cw20_payment: [],
        cw1155_payment: [],
        cw1155_intent_payment: [],
        member_address: '',
        evaluation_history: [],
      }),
    );
  });

  it('writes 64-bit integers as strings, 32-bit ones as numbers and enums as names', () => {
    const json = toRestJson('ixo.claims.v1beta1.Evaluation', {
      ...fromRestJson('ixo.claims.v1beta1.Evaluation', {}),
      status: 3,
      reason: 7,
      cw20_payment: [{ address: 'a', amount: '18446744073709551615' }],
    });
    expect(json).toMatchObject({
      status: 'DISPUTED',
      reason: 7,
      cw20_payment: [{ address: 'a', amount: '18446744073709551615' }],
    });
  });

  it('writes an enum number the table does not know as the number', () => {
    const json = toRestJson('ixo.claims.v1beta1.ClaimPayments', {
      submission: 42,
      evaluation: 6,
      approval: 0,
      rejection: 1,
    });
    expect(json).toEqual({
      submission: 42,
      evaluation: 'DISPUTED_PAYMENT',
      approval: 'NO_PAYMENT',
      rejection: 'PROMISED',
    });
  });

  it('writes empty bytes as null and other bytes as standard base64', () => {
    const decoded = QueryClaimListResponse.decode(
      QueryClaimListResponse.encode({
        claims: [],
        pagination: { next_key: Buffer.alloc(0), total: '0' },
      }).finish(),
    );
    expect(toRestJson('ixo.claims.v1beta1.QueryClaimListResponse', decoded)).toEqual({
      claims: [],
      pagination: { next_key: null, total: '0' },
    });
    expect(
      toRestJson('cosmos.base.query.v1beta1.PageResponse', {
        next_key: Buffer.from([0xfb, 0xff, 0x3e]),
        total: '25',
      }),
    ).toEqual({ next_key: '+/8+', total: '25' });
  });

  it('writes only the set member of a oneof', () => {
    const vm = VerificationMethod.decode(
      VerificationMethod.encode({ id: 'k', type: 't', controller: 'c', publicKeyHex: '' }).finish(),
    );
    expect(toRestJson('ixo.iid.v1beta1.VerificationMethod', vm)).toEqual({
      id: 'k',
      type: 't',
      controller: 'c',
      publicKeyHex: '',
    });
    expect(toRestJson('ixo.iid.v1beta1.VerificationMethod', { id: '', type: '', controller: '' })).toEqual({
      id: '',
      type: '',
      controller: '',
    });
  });

  it('writes cosmos.Dec fields with their decimal point back', () => {
    const params = fromRestJson('ixo.claims.v1beta1.Params', { network_fee_percentage: '0.1' });
    expect(params['network_fee_percentage']).toBe('100000000000000000');
    expect(toRestJson('ixo.claims.v1beta1.Params', params)).toEqual({
      collection_sequence: '0',
      ixo_account: '',
      network_fee_percentage: '0.100000000000000000',
      node_fee_percentage: '0.000000000000000000',
      intent_sequence: '0',
    });
  });
});

describe('fromRestJson (fixture loading)', () => {
  it('round-trips a message through the binary wire form', () => {
    const rest = {
      collection_id: '1',
      agent_did: 'did:ixo:a',
      agent_address: 'ixo1a',
      submission_date: '2024-03-05T10:20:30.123456789Z',
      claim_id: 'c-1',
      evaluation: null,
      payments_status: {
        submission: 'PAID',
        evaluation: 'NO_PAYMENT',
        approval: 'FAILED',
        rejection: 'PROMISED',
      },
      use_intent: true,
      amount: [{ denom: 'uixo', amount: '5' }],
      cw20_payment: [],
      cw1155_payment: [{ address: 'x', token_id: ['a', 'b'], amount: '9007199254740993' }],
      cw1155_intent_payment: [],
      member_address: '',
      evaluation_history: [],
    };
    const message = fromRestJson('ixo.claims.v1beta1.Claim', rest) as unknown as Claim;
    const decoded = Claim.decode(Claim.encode(message).finish());
    expect(toRestJson('ixo.claims.v1beta1.Claim', decoded)).toEqual(rest);
  });

  it('names the path of a bad value', () => {
    expect(() =>
      fromRestJson('ixo.claims.v1beta1.Claim', { payments_status: { approval: 'MAYBE' } }),
    ).toThrow(
      'ixo.claims.v1beta1.Claim.payments_status.approval: unknown ixo.claims.v1beta1.PaymentStatus value "MAYBE"',
    );
    expect(() => fromRestJson('ixo.claims.v1beta1.Claim', { claimId: 'x' })).toThrow(
      'ixo.claims.v1beta1.Claim: unknown field claimId',
    );
  });
});

describe('the generated field table', () => {
  it('has the wire facts: numbers, kinds and the CW20Payment gap', () => {
    expect(MESSAGES['ixo.claims.v1beta1.CW20Payment']?.map((f) => [f.number, f.name, f.kind])).toEqual([
      [1, 'address', 'string'],
      [3, 'amount', 'int64'],
    ]);
    expect(MESSAGES['ixo.entity.v1beta1.Entity']?.find((f) => f.name === 'status')?.kind).toBe('int32');
    expect(MESSAGES['ixo.claims.v1beta1.Evaluation']?.find((f) => f.name === 'reason')?.kind).toBe('int32');
    expect(ENUMS['ixo.claims.v1beta1.PaymentStatus']?.[6]).toBe('DISPUTED_PAYMENT');
    expect(ENUMS['ixo.claims.v1beta1.EvaluationStatus']?.[5]).toBe('FLAGGED');
  });
});
