/**
 * `@open-oracles/oracles-client-sdk/msw`: a mocked oracle for the tests (and demos) of apps that use this
 * library, as msw 2 handlers typed from the same contracts.
 *
 * @example
 * import { setupServer } from 'msw/node';
 * import { createOracleHandlers } from '@open-oracles/oracles-client-sdk/msw';
 * const oracle = createOracleHandlers();
 * const server = setupServer(...oracle);
 *
 * @packageDocumentation
 */
export { createOracleHandlers, DEFAULT_SCRIPT } from './msw/oracle-handlers.js';
export type {
  MockScript,
  MockStep,
  OracleHandlers,
  OracleMockControl,
  OracleMockOptions,
  PaymentReportAnswer,
  RecordedRequest,
} from './msw/oracle-handlers.js';
export { MockRun } from './msw/mock-run.js';
export type { MockRunEvent } from './msw/mock-run.js';
