import { z } from 'zod';

// Response bodies of the chain query gateway in Cosmos REST JSON form (the gRPC-gateway's JSONPb with
// OrigName and EmitDefaults): keys are the proto field names as written, every field is present, 64-bit
// integers and decimals are strings, enums are value names, timestamps RFC 3339, durations "<n>s", bytes
// base64, and an unset message field is null. Field tables: shared/facts/chain-wire-facts.md.

/** A uint64 in JSON: a base-10 string, e.g. `"25"`. */
export const Uint64 = z.string().regex(/^\d+$/, 'must be an unsigned 64-bit integer string');
/** A LegacyDec in REST JSON: 18 fraction digits, e.g. `"0.100000000000000000"`. */
export const Dec = z.string().regex(/^-?\d+\.\d{18}$/, 'must be a decimal with 18 fraction digits');
/** math.Int / math.Uint: a base-10 integer string, the same text on the wire and in JSON. */
export const BigIntString = z.string().regex(/^-?\d+$/, 'must be an integer string');
/** google.protobuf.Timestamp: RFC 3339 UTC, fraction only when non-zero (`2024-01-02T03:04:05Z`). */
export const Timestamp = z.string().datetime();
/** google.protobuf.Duration: seconds with an `s` suffix, e.g. `"3600s"` or `"1.500s"`. */
export const Duration = z.string().regex(/^-?\d+(\.\d+)?s$/, 'must be a duration like "3600s"');
/** bytes: standard base64, or null when empty. */
export const Bytes = z.string().base64().nullable();

/** cosmos.base.query.v1beta1.PageResponse. `next_key` is null on the last page. */
export const PageResponse = z.strictObject({ next_key: Bytes, total: Uint64 });
/** cosmos.base.v1beta1.Coin. */
export const Coin = z.strictObject({ denom: z.string(), amount: BigIntString });

// --- ixo.iid.v1beta1 ---

export const IidContext = z.strictObject({ key: z.string(), val: z.string() });
export const AccordedRight = z.strictObject({
  type: z.string(),
  id: z.string(),
  mechanism: z.string(),
  message: z.string(),
  service: z.string(),
});
export const LinkedResource = z.strictObject({
  type: z.string(),
  id: z.string(),
  description: z.string(),
  mediaType: z.string(),
  serviceEndpoint: z.string(),
  proof: z.string(),
  encrypted: z.string(),
  right: z.string(),
});
export const LinkedClaim = z.strictObject({
  type: z.string(),
  id: z.string(),
  description: z.string(),
  serviceEndpoint: z.string(),
  proof: z.string(),
  encrypted: z.string(),
  right: z.string(),
});
export const LinkedEntity = z.strictObject({
  type: z.string(),
  id: z.string(),
  relationship: z.string(),
  service: z.string(),
});
/** At most one of the four key-material fields is present (the oneof `verificationMaterial`). */
export const VerificationMethod = z.strictObject({
  id: z.string(),
  type: z.string(),
  controller: z.string(),
  blockchainAccountID: z.string().optional(),
  publicKeyHex: z.string().optional(),
  publicKeyMultibase: z.string().optional(),
  publicKeyBase58: z.string().optional(),
});
/** A service endpoint; an oracle advertises `oracleService` and `wsService` ones. */
export const IidService = z.strictObject({ id: z.string(), type: z.string(), serviceEndpoint: z.string() });
export const IidMetadata = z.strictObject({
  versionId: z.string(),
  created: Timestamp.nullable(),
  updated: Timestamp.nullable(),
  deactivated: z.boolean(),
});
/** ixo.iid.v1beta1.IidDocument (the key of field 1 is `context`, not `@context`). */
export const IidDocument = z.strictObject({
  context: z.array(IidContext),
  id: z.string(),
  controller: z.array(z.string()),
  verificationMethod: z.array(VerificationMethod),
  service: z.array(IidService),
  authentication: z.array(z.string()),
  assertionMethod: z.array(z.string()),
  keyAgreement: z.array(z.string()),
  capabilityInvocation: z.array(z.string()),
  capabilityDelegation: z.array(z.string()),
  linkedResource: z.array(LinkedResource),
  linkedClaim: z.array(LinkedClaim),
  accordedRight: z.array(AccordedRight),
  linkedEntity: z.array(LinkedEntity),
  alsoKnownAs: z.string(),
  metadata: IidMetadata.nullable(),
});
export type IidDocument = z.infer<typeof IidDocument>;

// --- ixo.entity.v1beta1 ---

export const EntityParams = z.strictObject({
  nftContractAddress: z.string(),
  nftContractMinter: z.string(),
  createSequence: Uint64,
});
export const EntityAccount = z.strictObject({ name: z.string(), address: z.string() });
export const EntityMetadata = z.strictObject({
  version_id: z.string(),
  created: Timestamp.nullable(),
  updated: Timestamp.nullable(),
});
/** ixo.entity.v1beta1.Entity. `status` is a plain int32 on the chain. */
export const Entity = z.strictObject({
  id: z.string(),
  type: z.string(),
  start_date: Timestamp.nullable(),
  end_date: Timestamp.nullable(),
  status: z.number().int(),
  relayer_node: z.string(),
  credentials: z.array(z.string()),
  entity_verified: z.boolean(),
  metadata: EntityMetadata.nullable(),
  accounts: z.array(EntityAccount),
});
export type Entity = z.infer<typeof Entity>;

// --- ixo.claims.v1beta1 ---

export const CollectionState = z.enum(['OPEN', 'PAUSED', 'CLOSED']);
export const CollectionIntentOptions = z.enum(['ALLOW', 'DENY', 'REQUIRED']);
export const EvaluationStatus = z.enum([
  'PENDING',
  'APPROVED',
  'REJECTED',
  'DISPUTED',
  'INVALIDATED',
  'FLAGGED',
]);
export const PaymentStatus = z.enum([
  'NO_PAYMENT',
  'PROMISED',
  'AUTHORIZED',
  'GUARANTEED',
  'PAID',
  'FAILED',
  'DISPUTED_PAYMENT',
]);

export const ClaimsParams = z.strictObject({
  collection_sequence: Uint64,
  ixo_account: z.string(),
  network_fee_percentage: Dec,
  node_fee_percentage: Dec,
  intent_sequence: Uint64,
});
export const Cw20Payment = z.strictObject({ address: z.string(), amount: Uint64 });
export const Cw1155Payment = z.strictObject({
  address: z.string(),
  token_id: z.array(z.string()),
  amount: Uint64,
});
export const Cw1155IntentPayment = z.strictObject({
  address: z.string(),
  tokens: z.array(z.strictObject({ token_id: z.string(), amount: Uint64 })),
});
export const Contract1155Payment = z.strictObject({
  address: z.string(),
  token_id: z.string(),
  amount: z.number().int(),
});
export const Payment = z.strictObject({
  account: z.string(),
  amount: z.array(Coin),
  contract_1155_payment: Contract1155Payment.nullable(),
  timeout_ns: Duration.nullable(),
  cw20_payment: z.array(Cw20Payment),
  is_oracle_payment: z.boolean(),
  cw1155_payment: z.array(Cw1155Payment),
});
export const Payments = z.strictObject({
  submission: Payment.nullable(),
  evaluation: Payment.nullable(),
  approval: Payment.nullable(),
  rejection: Payment.nullable(),
});
export const AdjudicationDid = z.strictObject({ did: z.string(), reward_percentage: Dec });
/** ixo.claims.v1beta1.Collection. */
export const Collection = z.strictObject({
  id: z.string(),
  entity: z.string(),
  admin: z.string(),
  protocol: z.string(),
  start_date: Timestamp.nullable(),
  end_date: Timestamp.nullable(),
  quota: Uint64,
  count: Uint64,
  evaluated: Uint64,
  approved: Uint64,
  rejected: Uint64,
  disputed: Uint64,
  state: CollectionState,
  payments: Payments.nullable(),
  signer: z.string(),
  invalidated: Uint64,
  escrow_account: z.string(),
  intents: CollectionIntentOptions,
  flagged: Uint64,
  flagged_active: Uint64,
  service_agent_deposit_required: z.array(Coin),
  evaluator_deposit_required: z.array(Coin),
  dispute_deposit_amount: z.array(Coin),
  penalty_amount_per_dispute: z.array(Coin),
  disputes_open: Uint64,
  disputes_awarded: Uint64,
  disputes_dismissed: Uint64,
  min_deposit_period: Duration.nullable(),
  adjudicators: z.array(AdjudicationDid),
});
export type Collection = z.infer<typeof Collection>;
export const Evaluation = z.strictObject({
  claim_id: z.string(),
  collection_id: z.string(),
  oracle: z.string(),
  agent_did: z.string(),
  agent_address: z.string(),
  status: EvaluationStatus,
  reason: z.number().int(),
  verification_proof: z.string(),
  evaluation_date: Timestamp.nullable(),
  amount: z.array(Coin),
  cw20_payment: z.array(Cw20Payment),
  cw1155_payment: z.array(Cw1155Payment),
  cw1155_intent_payment: z.array(Cw1155IntentPayment),
});
export const ClaimPayments = z.strictObject({
  submission: PaymentStatus,
  evaluation: PaymentStatus,
  approval: PaymentStatus,
  rejection: PaymentStatus,
});
/** ixo.claims.v1beta1.Claim. */
export const Claim = z.strictObject({
  collection_id: z.string(),
  agent_did: z.string(),
  agent_address: z.string(),
  submission_date: Timestamp.nullable(),
  claim_id: z.string(),
  evaluation: Evaluation.nullable(),
  payments_status: ClaimPayments.nullable(),
  use_intent: z.boolean(),
  amount: z.array(Coin),
  cw20_payment: z.array(Cw20Payment),
  cw1155_payment: z.array(Cw1155Payment),
  cw1155_intent_payment: z.array(Cw1155IntentPayment),
  member_address: z.string(),
  evaluation_history: z.array(Evaluation),
});
export type Claim = z.infer<typeof Claim>;

// --- ixo.token.v1beta1 ---

export const TokenParams = z.strictObject({ ixo1155_contract_code: Uint64 });
export const TokenData = z.strictObject({
  uri: z.string(),
  encrypted: z.boolean(),
  proof: z.string(),
  type: z.string(),
  id: z.string(),
});
export const TokenMetadataProperties = z.strictObject({
  class: z.string(),
  collection: z.string(),
  cap: z.string(),
  linkedResources: z.array(TokenData),
});
const TokenEvent = { id: z.string(), reason: z.string(), amount: BigIntString, owner: z.string() };
/** ixo.token.v1beta1.Token. */
export const Token = z.strictObject({
  minter: z.string(),
  contract_address: z.string(),
  class: z.string(),
  name: z.string(),
  description: z.string(),
  image: z.string(),
  type: z.string(),
  cap: BigIntString,
  supply: BigIntString,
  paused: z.boolean(),
  stopped: z.boolean(),
  retired: z.array(z.strictObject({ ...TokenEvent, jurisdiction: z.string() })),
  cancelled: z.array(z.strictObject(TokenEvent)),
  transferred: z.array(
    z.strictObject({ ...TokenEvent, jurisdiction: z.string(), authorization_id: z.string() }),
  ),
});
export type Token = z.infer<typeof Token>;
