/**
 * `@open-oracles/oracles-client-sdk/dev`: for trying the library against a development server
 * (`npm start`): a signer that mints the capability tokens the oracle verifies, and the capability names.
 * **Development only.** Needs the optional peers `@ucanto/core` and `@ucanto/principal`.
 *
 * @example
 * import { createDevSigner } from '@open-oracles/oracles-client-sdk/dev';
 * const user = await createDevSigner(); // { did, createDelegation, createInvocation }
 *
 * @packageDocumentation
 */
export { createDevSigner, DEV_USER_SEED } from './dev/dev-signer.js';
export type { DevSigner, DevSignerOptions } from './dev/dev-signer.js';
export { ORACLE_CAPABILITIES } from '../../contracts/oracle.js';
