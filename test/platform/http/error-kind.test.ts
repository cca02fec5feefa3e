import { describe, expect, it } from 'vitest';
import { clientErrorStatus, errorKindOf, type ErrorKind } from '../../../server/http/error-kind.js';
import { StoreTimeoutError } from '../../../server/with-timeout.js';

// The one table every part's error mapper reads the kind of a foreign error from (server/http/error-kind.ts).

const coded = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });
const withStatus = (fields: Record<string, unknown>): Error => Object.assign(new Error('bad body'), fields);

const CASES: [string, unknown, ErrorKind][] = [
  [
    'body-parser’s malformed JSON (status 400)',
    withStatus({ status: 400, type: 'entity.parse.failed' }),
    'client_error',
  ],
  ['a body over the limit (status 413)', withStatus({ status: 413 }), 'client_error'],
  ['http-errors’ statusCode alone', withStatus({ statusCode: 415 }), 'client_error'],
  [
    'a 4xx status wins over a connection code',
    withStatus({ status: 400, code: 'ECONNRESET' }),
    'client_error',
  ],
  ['a 5xx status is not the client’s', withStatus({ status: 502 }), 'internal'],
  ['a store timeout', new StoreTimeoutError('redis get timed out after 500 ms'), 'dependency_down'],
  ['ECONNREFUSED', coded('ECONNREFUSED'), 'dependency_down'],
  ['ECONNRESET', coded('ECONNRESET'), 'dependency_down'],
  ['ETIMEDOUT', coded('ETIMEDOUT'), 'dependency_down'],
  ['EPIPE', coded('EPIPE'), 'dependency_down'],
  ['EHOSTUNREACH', coded('EHOSTUNREACH'), 'dependency_down'],
  ['ENOTFOUND', coded('ENOTFOUND'), 'dependency_down'],
  ['EAI_AGAIN', coded('EAI_AGAIN'), 'dependency_down'],
  ['PostgreSQL connection failure (08006)', coded('08006'), 'dependency_down'],
  ['PostgreSQL admin shutdown (57P01)', coded('57P01'), 'dependency_down'],
  [
    'pg’s Connection terminated unexpectedly',
    new Error('Connection terminated unexpectedly'),
    'dependency_down',
  ],
  ['pg pool’s connect timeout', new Error('timeout exceeded when trying to connect'), 'dependency_down'],
  [
    'ioredis: Stream isn’t writeable',
    new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    'dependency_down',
  ],
  ['ioredis: Connection is closed', new Error('Connection is closed.'), 'dependency_down'],
  ['a unique violation (23505) is a bug, not an outage', coded('23505'), 'internal'],
  ['ETIMEDOUTX is not a timeout code', coded('ETIMEDOUTX'), 'internal'],
  ['a plain Error', new Error('boom'), 'internal'],
  ['a thrown string', 'boom', 'internal'],
  ['undefined', undefined, 'internal'],
];

describe('errorKindOf', () => {
  it.each(CASES)('%s', (_name, err, kind) => {
    expect(errorKindOf(err)).toBe(kind);
  });
});

describe('clientErrorStatus', () => {
  it('is the 4xx status an error carries, and undefined for anything else', () => {
    expect(clientErrorStatus(withStatus({ status: 413 }))).toBe(413);
    expect(clientErrorStatus(withStatus({ statusCode: 400 }))).toBe(400);
    expect(clientErrorStatus(withStatus({ status: 500 }))).toBeUndefined();
    expect(clientErrorStatus(withStatus({ status: '400' }))).toBeUndefined();
    expect(clientErrorStatus(null)).toBeUndefined();
  });
});
