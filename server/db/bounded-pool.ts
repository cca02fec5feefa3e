import pg from 'pg';
import { StoreTimeoutError, withTimeout } from '../with-timeout.js';

/** How long a pooled PostgreSQL connection may make a caller wait. */
export interface PoolBounds {
  /** Longest run of one statement: the server's `statement_timeout`, and a client-side read timeout; 0: none. */
  statementTimeoutMs: number;
  /** Longest wait for a connection from the pool (including opening a new one). */
  acquireTimeoutMs: number;
}

/**
 * A client-side read timeout a little above the server's `statement_timeout`: a slow statement is cancelled by
 * the server first (the connection stays usable); only a server that does not answer at all (paused, network
 * gone) reaches this one, and that connection is then discarded.
 */
const READ_TIMEOUT_MARGIN_MS = 100;

/**
 * How long opening one connection may take before pg gives it up. Longer than a caller waits for a connection
 * (`acquireTimeoutMs`) on purpose: a caller that gives up leaves the connection being opened to finish and join
 * the pool. Giving the connection up with the caller (pg-pool's own `connectionTimeoutMillis`) fed a storm after a
 * database stall: every attempt was abandoned before the server, working through the connections queued during
 * the stall, reached it, so the server spent its time on clients already gone (a 5 s pause took 12-25 s to
 * recover from on a machine where a connection takes ~0.3 s to open).
 */
const CONNECT_TIMEOUT_MS = 5000;

/** pg's messages for the two client-side timeouts, which carry no error code. */
const CLIENT_TIMEOUTS = ['Query read timeout', 'timeout exceeded when trying to connect'];

/** Gives pg's client-side timeouts the code of a connection timeout, so callers treat them as "unavailable". */
function tagTimeout(err: unknown): unknown {
  if (err instanceof Error && CLIENT_TIMEOUTS.some((m) => err.message.startsWith(m))) {
    const tagged = err as Error & { code?: string };
    tagged.code ??= 'ETIMEDOUT';
  }
  return err;
}

/** How busy a pool is: connections handed out, its size, callers waiting for one and for how long. */
export interface PoolLoad {
  inUse: number;
  max: number;
  waiting: number;
  /** How long the caller waiting longest has waited, in ms (0: nobody waits). */
  oldestWaitMs: number;
}

/** A pg pool whose every wait is bounded. */
export interface BoundedPool {
  /** What kysely's PostgresDialect is given. */
  pool: pg.Pool;
  /** How busy it is now (read by admission control before a turn starts). */
  load: () => PoolLoad;
  /** One round trip on a connection of its own; gives up after `timeoutMs` and then discards that connection. */
  ping: (timeoutMs: number) => Promise<void>;
}

/**
 * A pg pool with bounded waits ({@link PoolBounds}). A connection whose query timed out on the client side
 * (the server did not answer) is destroyed on release instead of going back to the pool: its late answer would
 * otherwise be read by the next query, or the next caller would wait behind the stalled one.
 */
export function createBoundedPool(config: pg.PoolConfig, bounds: PoolBounds): BoundedPool {
  const pool = new pg.Pool({
    ...config,
    // The queue wait and the connect are both bounded by `acquire` below; pg's bound is the connect's own.
    connectionTimeoutMillis: Math.max(bounds.acquireTimeoutMs, CONNECT_TIMEOUT_MS),
    ...(bounds.statementTimeoutMs > 0
      ? {
          statement_timeout: bounds.statementTimeoutMs,
          query_timeout: bounds.statementTimeoutMs + READ_TIMEOUT_MARGIN_MS,
        }
      : {}),
  });
  /** Connections handed out and not yet released (a connection still opening is not in use). */
  let inUse = 0;
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);

  const broken = new WeakSet<pg.PoolClient>();
  const guardedClients = new WeakSet<pg.PoolClient>();
  const listening = new WeakSet<pg.PoolClient>();
  // A checked-out client whose server goes away between two queries (a restart: "terminating connection due
  // to administrator command") emits 'error'; unheard, that would crash the process. The next query on it
  // fails, and it is destroyed on release. Attached when pg-pool hands the client out ('acquire' comes just
  // before the pool removes its own idle listener), so there is no moment without a listener.
  pool.on('acquire', (client: pg.PoolClient) => {
    if (listening.has(client)) return;
    listening.add(client);
    client.on('error', () => broken.add(client));
  });
  const connect = pool.connect.bind(pool);
  /**
   * The callers waiting for a connection, oldest first, with when each began (pg-pool serves them in order). A
   * caller that gave up stays until pg-pool hands its connection out (its place in the queue is still taken).
   */
  const waits: { since: number; over: boolean }[] = [];
  /**
   * A connection within `acquireTimeoutMs`. An idle one is handed out at once (when nobody waits: pg-pool
   * serves its queue in order, so a caller behind waiters would wait unbounded by this timer); otherwise the
   * wait (for a busy one, or for a new one being opened) is bounded here, and a connection that arrives after
   * the caller gave up goes back to the pool instead of being thrown away.
   */
  const acquire = (): Promise<pg.PoolClient> => {
    if (pool.idleCount > 0 && pool.waitingCount === 0) return connect();
    const wait = { since: performance.now(), over: false };
    waits.push(wait);
    const pending = connect();
    const over = (): void => {
      wait.over = true;
      while (waits[0]?.over) waits.shift();
    };
    pending.then(over, over);
    return withTimeout(pending, bounds.acquireTimeoutMs, 'database connection').catch((err: unknown) => {
      if (!(err instanceof StoreTimeoutError)) throw err;
      pending.then(
        (late) => late.release(),
        () => undefined,
      );
      // Saturation and an outage fail alike (the caller answers 503), but an operator reading the log needs
      // to tell a full pool (raise DB_POOL_SIZE, or the load is too high) from a database that does not answer.
      throw new Error(
        inUse >= pool.options.max
          ? `timeout exceeded when trying to connect: all ${inUse} connections busy, ${pool.waitingCount} waiting`
          : 'timeout exceeded when trying to connect',
      );
    });
  };
  const guarded = async (): Promise<pg.PoolClient> => {
    const client = await acquire().catch((err: unknown) => {
      throw tagTimeout(err);
    });
    if (!guardedClients.has(client)) {
      guardedClients.add(client);
      // Wrapped once per connection: pg keeps the client across checkouts, so wrapping at every checkout
      // nested one more layer each time (a query on a connection checked out n times ran through n wrappers,
      // until the stack overflowed).
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = (...args: unknown[]) => {
        // A connection whose server stopped answering fails at once (e.g. the ROLLBACK kysely sends after a
        // failed statement in a transaction), instead of waiting out a second read timeout.
        if (broken.has(client)) {
          return Promise.reject(
            Object.assign(new Error('Query read timeout: connection discarded'), { code: 'ETIMEDOUT' }),
          );
        }
        const result = query(...args);
        if (!(result instanceof Promise)) return result;
        return result.catch((err: unknown) => {
          if (tagTimeout(err) instanceof Error && (err as { code?: string }).code === 'ETIMEDOUT') {
            broken.add(client);
          }
          throw err;
        });
      };
    }
    // pg-pool gives the client a new `release` at every checkout.
    const release = client.release.bind(client);
    inUse++;
    let released = false;
    client.release = (destroy?: boolean | Error) => {
      if (!released) inUse--;
      released = true;
      release(destroy === true || destroy instanceof Error || broken.has(client) ? true : undefined);
    };
    return client;
  };
  // Every caller (kysely, the ping) goes through the guarded connect.
  (pool as { connect: unknown }).connect = guarded;

  return {
    pool,
    load: () => ({
      inUse,
      max: pool.options.max,
      waiting: pool.waitingCount,
      oldestWaitMs: waits[0] ? performance.now() - waits[0].since : 0,
    }),
    async ping(timeoutMs) {
      let gaveUp = false;
      let own: pg.Client | undefined;
      const attempt = (async () => {
        // A closed pool answers as closed: a connection of the check's own would still reach the database.
        if (pool.ended) throw new Error('database pool is closed');
        // No idle pooled connection: every one busy (a burst of turns), or one would have to be opened within
        // the pool's acquire timeout (500 ms by default, less than a slow machine may take to connect). The
        // check must neither wait for a busy one nor give up sooner than its own timeout, so it asks on a
        // connection of its own (given up at the check's timeout) and closed after it.
        if (pool.idleCount === 0) {
          // pg's own timeouts are only a backstop (twice the check's): after a stall of this process they would
          // be due at the same moment as the check's, and fire before the answer that beat them is read.
          own = new pg.Client({ ...config, connectionTimeoutMillis: 2 * timeoutMs });
          own.on('error', () => undefined);
          try {
            await own.connect();
            await own.query({ text: 'select 1', query_timeout: 2 * timeoutMs } as pg.QueryConfig);
          } finally {
            void own.end().catch(() => undefined);
          }
          return;
        }
        const client = await guarded();
        if (gaveUp) {
          client.release(true);
          return;
        }
        try {
          // pg reads a per-query `query_timeout` (its types do not declare it).
          await client.query({ text: 'select 1', query_timeout: 2 * timeoutMs } as pg.QueryConfig);
          client.release();
        } catch (err) {
          client.release(true);
          throw err;
        }
      })();
      attempt.catch(() => undefined);
      try {
        await withTimeout(attempt, timeoutMs, 'database ping');
      } catch (err) {
        gaveUp = true;
        void own?.end().catch(() => undefined);
        throw err;
      }
    },
  };
}
