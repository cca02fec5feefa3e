// Type tests: the compiler, not a runtime assertion, proves that a handler or a client call that drifts from
// its contract fails to build. Every `@ts-expect-error` below fails the typecheck if the line compiles.
import { initServer } from '@ts-rest/express';
import { describe, expectTypeOf, it } from 'vitest';
import { systemContract } from '../../contracts/system.js';
import { ussdContract } from '../../contracts/ussd.js';
import { createApiClient } from '../../sdk/api-client.js';

const s = initServer();
const now = new Date().toISOString();
const healthy = {
  status: 'ok',
  environment: 'test',
  timestamp: now,
  uptime: 1,
  database: 'connected',
} as const;

describe('server handlers agree with their contract', () => {
  it('accepts a handler that returns a declared status and body', () => {
    const route = s.route(systemContract.health, () =>
      Promise.resolve({ status: 200 as const, body: healthy }),
    );
    expectTypeOf(route).toBeFunction();
  });

  it('rejects a status the contract does not declare', () => {
    s.route(
      systemContract.probe,
      // @ts-expect-error 418 is not a response status of system.probe
      () =>
        Promise.resolve({
          status: 418 as const,
          body: { status: 'ok', message: 'm', environment: 'e', timestamp: now },
        }),
    );
  });

  it('rejects a body field the contract does not declare', () => {
    s.route(
      systemContract.health,
      // @ts-expect-error `database: 'maybe'` is not one of the declared values
      () => Promise.resolve({ status: 200 as const, body: { ...healthy, database: 'maybe' } }),
    );
  });

  it('rejects a router that misses a route of its contract', () => {
    // @ts-expect-error `sessions` and `debug` are missing
    s.router(ussdContract, {
      session: () => Promise.resolve({ status: 200 as const, body: 'END Bye' as const }),
    });
  });
});

describe('client calls agree with the contract', () => {
  const api = createApiClient('http://127.0.0.1:0');

  it('types the body of each declared response', () => {
    type Health = Awaited<ReturnType<typeof api.system.health>>;
    expectTypeOf<Extract<Health, { status: 200 }>['body']['database']>().toEqualTypeOf<
      'connected' | 'disconnected'
    >();
  });

  it('rejects a wrong body', () => {
    void (() =>
      api.ussd.session({
        // @ts-expect-error sessionId must be a string
        body: { sessionId: 42, serviceCode: '*384#', phoneNumber: '+254700000000', text: '' },
      }));
  });

  it('rejects a missing path parameter', () => {
    // @ts-expect-error params.sessionId is required
    void (() => api.ussd.debug({ params: {} }));
  });
});
