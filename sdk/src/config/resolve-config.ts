import { z } from 'zod';
import type { IidDocument } from '../../../contracts/chain-schemas.js';
import type { OracleConfig } from '../../../contracts/oracle.js';
import { OracleRequestError, stepFetch } from '../http/oracle-request-error.js';
import type { OracleOverrides } from '../types.js';

/** The oracle's addresses as its on-chain IID document advertises them. */
export interface OracleEndpoints {
  /** Origin of the `oracleService` (or `#api`) service. */
  apiUrl: string | undefined;
  /** Origin of the `wsService` (or `#ws`) service. */
  wsUrl: string | undefined;
}

/**
 * The fields of the entity route's answer that resolution reads. Declared here (the contract's full schemas
 * would more than double the library's size) and held to the contract's type by `satisfies`.
 */
const IidServiceFields = z.object({
  id: z.string(),
  type: z.string(),
  serviceEndpoint: z.string(),
}) satisfies z.ZodType<IidDocument['service'][number]>;
const EntityServices = z.object({ iidDocument: z.object({ service: z.array(IidServiceFields) }) });

/** The `/config` fields this library reads, held to the contract's `OracleConfig` by `satisfies`. */
const OracleConfigFields = z.object({
  did: z.string(),
  entityDid: z.string().optional(),
  name: z.string(),
  model: z.string(),
  price: z.object({ amount: z.number(), denom: z.string(), per: z.literal('turn') }),
  apiUrl: z.string(),
  wsUrl: z.string(),
}) satisfies z.ZodType<OracleConfig>;

const origin = (endpoint: string): string | undefined => {
  try {
    return new URL(endpoint).origin;
  } catch {
    return undefined;
  }
};

/**
 * Reads an oracle's API and WebSocket origins from its IID document, through the chain gateway's REST entity
 * route `GET {chainRestUrl}/{prefix}/entity/{did}` (services of type `oracleService` and `wsService`, or with
 * ids `{did}#api` and `{did}#ws`).
 */
export async function fetchOracleEndpoints(
  chainRestUrl: string,
  oracleDid: string,
  prefix = 'ixo',
  signal?: AbortSignal,
): Promise<OracleEndpoints> {
  const id = encodeURIComponent(oracleDid).replace(/%3A/gi, ':');
  const url = `${chainRestUrl}/${prefix}/entity/${id}`;
  const res = await stepFetch('chain lookup', url, { headers: { accept: 'application/json' }, signal });
  if (!res.ok) {
    const cause = await OracleRequestError.from(res, 'chain lookup');
    throw new OracleRequestError(
      `The chain lookup of ${oracleDid} failed: ${url} answered ${res.status} (${cause.message})`,
      { status: res.status, step: 'chain lookup', cause },
    );
  }
  const parsed = EntityServices.safeParse(await res.json().catch(() => undefined));
  if (!parsed.success)
    throw new OracleRequestError(
      `The chain lookup of ${oracleDid} failed: ${url} is not an entity document`,
      {
        status: res.status,
        step: 'chain lookup',
      },
    );
  const { iidDocument } = parsed.data;
  const find = (type: string, suffix: string) =>
    iidDocument.service.find((s) => s.type === type) ??
    iidDocument.service.find((s) => s.id === `${oracleDid}${suffix}` || s.id.endsWith(suffix));
  const api = find('oracleService', '#api');
  const ws = find('wsService', '#ws');
  return {
    apiUrl: api ? origin(api.serviceEndpoint) : undefined,
    wsUrl: ws ? origin(ws.serviceEndpoint) : undefined,
  };
}

/** Reads the oracle's public `GET {apiUrl}/config`. */
export async function fetchOracleConfig(apiUrl: string, signal?: AbortSignal): Promise<OracleConfig> {
  const url = `${apiUrl.replace(/\/+$/, '')}/config`;
  const res = await stepFetch('config', url, { headers: { accept: 'application/json' }, signal });
  if (!res.ok) {
    const cause = await OracleRequestError.from(res, 'config');
    throw new OracleRequestError(`Reading ${url} failed: ${res.status} (${cause.message})`, {
      status: res.status,
      step: 'config',
      cause,
    });
  }
  const parsed = OracleConfigFields.safeParse(await res.json().catch(() => undefined));
  if (!parsed.success)
    throw new OracleRequestError(`Reading ${url} failed: the answer is not an oracle config`, {
      status: res.status,
      step: 'config',
    });
  return parsed.data;
}

/** Which base URL and WebSocket URL win: overrides, then the chain document, then `/config`. */
export function pickUrls(
  overrides: OracleOverrides | undefined,
  endpoints: OracleEndpoints | undefined,
  config: OracleConfig | undefined,
): { apiUrl: string | undefined; wsUrl: string | undefined } {
  const apiUrl = overrides?.baseUrl ?? endpoints?.apiUrl;
  const wsUrl = overrides?.wsUrl ?? endpoints?.wsUrl ?? config?.wsUrl ?? apiUrl;
  return { apiUrl: apiUrl?.replace(/\/+$/, ''), wsUrl: wsUrl?.replace(/\/+$/, '') };
}
