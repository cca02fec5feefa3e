import { initClient, type InitClientArgs } from '@ts-rest/core';
import { contract } from '../contracts/index.js';

/** Options of {@link createApiClient}; see ts-rest's `initClient`. */
export type ApiClientOptions = Partial<Omit<InitClientArgs, 'baseUrl'>>;

/**
 * A typed client for every HTTP route of the gateway, built from the same contract the server implements:
 * a call whose path, query or body no longer matches the contract is a compile error.
 *
 * @example
 * const api = createApiClient('http://localhost:3000');
 * const { status, body } = await api.system.health();
 * if (status === 200) console.log(body.database); // 'connected'
 */
export function createApiClient(baseUrl: string, options: ApiClientOptions = {}) {
  return initClient(contract, { baseHeaders: {}, ...options, baseUrl });
}

export type ApiClient = ReturnType<typeof createApiClient>;
