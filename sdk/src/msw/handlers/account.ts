import { http, HttpResponse, type HttpHandler } from 'msw';
import { creditsContract, type CreditsAccount } from '../../../../contracts/credits.js';
import { memoryContract, type Memory } from '../../../../contracts/memory.js';
import { oracleContract, type SerializedToken } from '../../../../contracts/oracle.js';
import { preferencesContract, type UserPreferences } from '../../../../contracts/preferences.js';
import { errorBody, guard, nextId, now, routeUrl, type MockState } from '../mock-state.js';
import type { PaymentReportAnswer } from '../types.js';

/** The service's refusal of a payment report, as `POST /credits/payments` answers it. */
function refusedPayment(answer: PaymentReportAnswer): Response {
  switch (answer) {
    case 'payment_not_found':
      return errorBody(404, answer, 'The chain node does not know this transaction (yet).');
    case 'payment_mismatch':
      return errorBody(422, answer, 'The transaction does not pay this oracle as reported.');
    case 'payment_failed':
      return errorBody(422, answer, 'The transaction failed on chain.');
    case 'payment_conflict':
      return errorBody(409, answer, 'This transaction was reported by another user.');
    case 'network_error':
      return HttpResponse.error();
  }
}

/** The user's things with the oracle: the stored delegation, credits, memory and preferences. */
export function accountHandlers(state: MockState): HttpHandler[] {
  const url = (path: string) => routeUrl(state, path);
  return [
    http.post(url(oracleContract.storeDelegation.path), async ({ request }) => {
      const g = await guard<SerializedToken | undefined>(state, request, '/delegation');
      if (g.refused) return g.refused;
      const token = g.body;
      if (typeof token?.serialized !== 'string' || typeof token.expiresAt !== 'number')
        return errorBody(400, 'bad_request', 'A delegation is { serialized, expiresAt }.');
      state.delegations.push(token);
      state.delegationState = 'stored';
      return HttpResponse.json({
        issuer: 'did:key:z6MkMockUser',
        audience: state.config.did,
        expiresAt: token.expiresAt,
      });
    }),
    http.get(url(creditsContract.account.path), async ({ request }) => {
      const g = await guard(state, request, '/credits');
      if (g.refused) return g.refused;
      return HttpResponse.json<CreditsAccount>({
        ...state.credits,
        outstandingClaims: state.paymentRequired || [],
      });
    }),
    http.post(url(creditsContract.pay.path), async ({ request }) => {
      const g = await guard<{ txHash?: string; amount?: { amount?: string } } | undefined>(
        state,
        request,
        '/credits/payments',
      );
      if (g.refused) return g.refused;
      const txHash = g.body?.txHash;
      const amount = Number(g.body?.amount?.amount);
      if (typeof txHash !== 'string' || !Number.isFinite(amount))
        return errorBody(400, 'bad_request', 'txHash and amount are required.');
      const scripted = state.paymentReports.shift();
      if (scripted) return refusedPayment(scripted);
      const first = state.credited.get(txHash);
      if (first) return HttpResponse.json(first);
      state.credits.balance += amount * state.credits.payTo.creditsPerUnit;
      const answer = { balance: state.credits.balance, settledClaims: state.paymentRequired || [] };
      state.paymentRequired = false;
      state.credited.set(txHash, answer);
      return HttpResponse.json<{ balance: number; settledClaims: string[] }>(answer);
    }),
    http.get(url(memoryContract.list.path), async ({ request }) => {
      const g = await guard(state, request, '/memory');
      if (g.refused) return g.refused;
      const q = new URL(request.url).searchParams.get('q')?.toLowerCase();
      const found = state.memories.filter(
        (m) => !q || m.content.toLowerCase().includes(q) || m.tags.includes(q),
      );
      return HttpResponse.json<{ memories: Memory[]; total: number }>({
        memories: found,
        total: found.length,
      });
    }),
    http.post(url(memoryContract.remember.path), async ({ request }) => {
      const g = await guard<{ content?: string; tags?: string[] } | undefined>(state, request, '/memory');
      if (g.refused) return g.refused;
      if (typeof g.body?.content !== 'string') return errorBody(400, 'bad_request', 'content is required.');
      const memory: Memory = {
        id: nextId('mem'),
        content: g.body.content,
        tags: g.body.tags ?? [],
        createdAt: now(),
      };
      state.memories.unshift(memory);
      return HttpResponse.json<Memory>(memory, { status: 201 });
    }),
    http.delete(url(memoryContract.forget.path), async ({ request, params }) => {
      const memoryId = String(params['memoryId']);
      const g = await guard(state, request, `/memory/${memoryId}`);
      if (g.refused) return g.refused;
      const i = state.memories.findIndex((m) => m.id === memoryId);
      if (i === -1) return errorBody(404, 'not_found', 'Memory not found.');
      state.memories.splice(i, 1);
      return HttpResponse.json<{ message: string }>({ message: 'Forgotten' });
    }),
    http.get(url(preferencesContract.get.path), async ({ request }) => {
      const g = await guard(state, request, '/user-preferences');
      if (g.refused) return g.refused;
      return HttpResponse.json<UserPreferences | null>(state.preferences);
    }),
  ];
}
