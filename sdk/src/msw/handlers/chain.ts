import { http, HttpResponse, type HttpHandler } from 'msw';
import type { Entity, IidDocument } from '../../../../contracts/chain-schemas.js';
import type { MockState } from '../mock-state.js';

const entityDoc = (
  oracleDid: string,
  apiUrl: string,
  wsUrl: string,
): { entity: Entity; iidDocument: IidDocument } => ({
  entity: {
    id: oracleDid,
    type: 'oracle',
    start_date: null,
    end_date: null,
    status: 0,
    relayer_node: oracleDid,
    credentials: [],
    entity_verified: true,
    metadata: { version_id: '1', created: '2026-01-01T00:00:00Z', updated: '2026-01-01T00:00:00Z' },
    accounts: [],
  },
  iidDocument: {
    context: [],
    id: oracleDid,
    controller: [oracleDid],
    verificationMethod: [],
    service: [
      { id: `${oracleDid}#api`, type: 'oracleService', serviceEndpoint: `${apiUrl}/` },
      { id: `${oracleDid}#ws`, type: 'wsService', serviceEndpoint: `${wsUrl}/` },
    ],
    authentication: [],
    assertionMethod: [],
    keyAgreement: [],
    capabilityInvocation: [],
    capabilityDelegation: [],
    linkedResource: [],
    linkedClaim: [],
    accordedRight: [],
    linkedEntity: [],
    alsoKnownAs: '',
    metadata: null,
  },
});

/** The chain gateway's entity route: the oracle's IID document (its API and socket services), 404 for others. */
export function chainHandlers(state: MockState): HttpHandler[] {
  return [
    http.get(`${state.chainRestUrl}/${state.prefix}/entity/:id`, ({ params }) => {
      const id = decodeURIComponent(String(params['id']));
      if (id !== state.oracleDid)
        return HttpResponse.json(
          { code: 5, message: `entity ${id} not found`, details: [] },
          { status: 404 },
        );
      return HttpResponse.json(entityDoc(state.oracleDid, state.apiUrl, state.wsUrl));
    }),
  ];
}
