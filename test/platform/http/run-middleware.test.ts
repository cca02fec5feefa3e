import { describe, expect, it } from 'vitest';
import { runMiddleware, type Middleware } from '../../../server/http/run-middleware.js';

// The one middleware runner (server/http/run-middleware.ts): the USSD session route's direct path and the
// oracle's authenticated routes run their chains with it, in order, stopping at the first error.

type Log = string[];
const pass =
  (name: string): Middleware<Log, unknown> =>
  (log, _res, next) => {
    log.push(name);
    next();
  };

describe('runMiddleware', () => {
  it('runs every middleware in order, then done with no error, before it returns when all are synchronous', () => {
    const log: Log = [];
    runMiddleware([pass('a'), pass('b')], log, undefined, (err) => log.push(`done ${String(err)}`));
    expect(log).toEqual(['a', 'b', 'done undefined']);
  });

  it('calls done at once with an empty chain', () => {
    const log: Log = [];
    runMiddleware([], log, undefined, (err) => log.push(`done ${String(err)}`));
    expect(log).toEqual(['done undefined']);
  });

  it('stops at the first error given to next, or thrown, and hands it to done', () => {
    const given = new Error('given');
    const thrown = new Error('thrown');
    const seen: unknown[] = [];
    runMiddleware([(_r, _s, next) => next(given), pass('never')], [], undefined, (err) => seen.push(err));
    runMiddleware(
      [
        () => {
          throw thrown;
        },
        pass('never'),
      ],
      [],
      undefined,
      (err) => seen.push(err),
    );
    expect(seen).toEqual([given, thrown]);
  });

  it('does not call done when a middleware answers without next', () => {
    const log: Log = [];
    runMiddleware([(l) => l.push('answered'), pass('never')], log, undefined, () => log.push('done'));
    expect(log).toEqual(['answered']);
  });

  it('continues after an asynchronous next', async () => {
    const log: Log = [];
    await new Promise<void>((resolve) => {
      runMiddleware(
        [(l, _s, next) => void Promise.resolve().then(() => (l.push('later'), next())), pass('b')],
        log,
        undefined,
        () => resolve(),
      );
    });
    expect(log).toEqual(['later', 'b']);
  });

  it('lets a throw of done reach the caller, instead of calling done twice', () => {
    let calls = 0;
    expect(() =>
      runMiddleware([pass('a')], [], undefined, () => {
        calls += 1;
        throw new Error('in done');
      }),
    ).toThrow('in done');
    expect(calls).toBe(1);
  });
});
