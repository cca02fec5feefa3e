import { METHODS, type MethodName } from '../../generated/proto/chain-descriptor.js';
import { QueryService as ClaimsQuery } from '../../generated/proto/ixo/claims/v1beta1/query.js';
import { QueryService as EntityQuery } from '../../generated/proto/ixo/entity/v1beta1/query.js';
import { QueryService as IidQuery } from '../../generated/proto/ixo/iid/v1beta1/query.js';
import { QueryService as TokenQuery } from '../../generated/proto/ixo/token/v1beta1/query.js';

/** The parts of a ts-proto grpc-js method definition the gateway calls a method with. */
export interface UnaryMethod {
  readonly path: string;
  // `this: void`: ts-proto writes them as arrow functions, which the client hands to grpc-js unbound.
  requestSerialize(this: void, value: unknown): Buffer;
  responseDeserialize(this: void, value: Buffer): unknown;
}

/** The ts-proto grpc-js service definitions of the four query services, for clients and the fixture node. */
export const QUERY_SERVICES = {
  'ixo.entity.v1beta1.Query': EntityQuery,
  'ixo.claims.v1beta1.Query': ClaimsQuery,
  'ixo.token.v1beta1.Query': TokenQuery,
  'ixo.iid.v1beta1.Query': IidQuery,
} as const;

type Services = typeof QUERY_SERVICES;
type PathsOf<S> = { [K in keyof S]: S[K] extends { path: infer P } ? P : never }[keyof S];
type DefinedPath = { [K in keyof Services]: PathsOf<Services[K]> }[keyof Services];
// Compile-time check: every method of the descriptor has a generated definition, and vice versa.
const exhaustive: [Exclude<`/${MethodName}`, DefinedPath>, Exclude<DefinedPath, `/${MethodName}`>] extends [
  never,
  never,
]
  ? true
  : never = true;
void exhaustive;

const byPath = new Map<string, UnaryMethod>(
  Object.values(QUERY_SERVICES).flatMap((service) =>
    Object.values(service as Record<string, UnaryMethod>).map((m) => [m.path, m] as const),
  ),
);

/** The method definition and the input/output message names of a query method. */
export interface MethodBinding {
  readonly name: MethodName;
  readonly definition: UnaryMethod;
  readonly input: string;
  readonly output: string;
}

/** Every query method by full name (`ixo.entity.v1beta1.Query/Entity`). */
export const GRPC_METHODS: ReadonlyMap<MethodName, MethodBinding> = new Map(
  METHODS.map((m) => {
    const definition = byPath.get(`/${m.method}`);
    if (!definition) throw new Error(`no generated definition for ${m.method}`);
    return [m.method, { name: m.method, definition, input: m.input, output: m.output }] as const;
  }),
);

/** Narrows a configured method name (`ixo.token.v1beta1.Query/Params`, leading `/` allowed). */
export function toMethodName(text: string): MethodName | undefined {
  const name = text.replace(/^\//, '');
  return GRPC_METHODS.has(name as MethodName) ? (name as MethodName) : undefined;
}
