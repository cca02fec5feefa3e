/**
 * `@open-oracles/oracles-client-sdk/chain`: a typed client of the chain query gateway's REST routes, for
 * apps that query the chain themselves (entities, claims, tokens, IID documents).
 *
 * @example
 * import { createChainClient } from '@open-oracles/oracles-client-sdk/chain';
 * const chain = createChainClient({ baseUrl: 'https://rest.example.org' });
 * const res = await chain.entity.entity({ params: { id: 'did:ixo:entity:abc' } });
 * if (res.status === 200) console.log(res.body.iidDocument.service);
 *
 * @packageDocumentation
 */
export { createChainClient } from './chain-client.js';
export type { ChainClient, ChainClientOptions, ChainPathShape } from './chain-client.js';
export { chainContract, CHAIN_DEFAULT_PREFIX, CosmosError } from '../../contracts/chain.js';
export type { ChainContract } from '../../contracts/chain.js';
export type { Claim, Collection, Entity, IidDocument, Token } from '../../contracts/chain-schemas.js';
