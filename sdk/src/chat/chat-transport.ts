import type { RunInfo, SendMessageBody } from '../../../contracts/oracle.js';
import { IN_FLIGHT_STATUSES } from '../../../contracts/run-states.js';
import { oracleRoutes as oracleContract } from '../http/routes.js';
import type { OracleHttp } from '../http/oracle-http.js';
import { isAbortError, OracleRequestError } from '../http/oracle-request-error.js';
import type { RejoinOptions } from '../types.js';
import { backoffDelay, sleep } from '../util/backoff.js';
import { readEventStream, type StreamEvent } from './sse.js';

/** The answer stream was lost and could not be re-joined (the run ends `disconnected`). */
export class RunDisconnectedError extends Error {
  override readonly name = 'RunDisconnectedError';
  constructor(cause?: unknown) {
    super(
      'The answer stream was lost and could not be re-joined',
      cause === undefined ? undefined : { cause },
    );
  }
}

/** A turn's stream as `POST /messages/:sessionId` opened it. */
export interface OpenedTurn {
  requestId: string;
  runId: string | undefined;
  body: ReadableStream<Uint8Array>;
}

/** What a run's event stream reports besides its events. */
export interface FollowHooks {
  /** True while a dropped stream is being re-joined. */
  onReconnecting: (reconnecting: boolean) => void;
}

const IN_FLIGHT = new Set<RunInfo['status']>(IN_FLIGHT_STATUSES);

/**
 * The chat's transport: opens a turn's event stream, re-joins it when it drops, finds a run in flight, and
 * asks the oracle to abort. Knows HTTP and SSE; knows nothing of messages or React.
 */
export class ChatTransport {
  readonly #http: OracleHttp;
  readonly #sessionId: string;
  readonly #rejoin: () => RejoinOptions;

  constructor(http: OracleHttp, sessionId: string, rejoin: () => RejoinOptions = () => ({})) {
    this.#http = http;
    this.#sessionId = sessionId;
    this.#rejoin = rejoin;
  }

  /** Sends a message with `stream: true` and returns its stream (non-2xx throws an OracleRequestError). */
  async send(body: SendMessageBody, signal: AbortSignal): Promise<OpenedTurn> {
    const res = await this.#http.open(oracleContract.send, {
      params: { sessionId: this.#sessionId },
      body,
      signal,
      headers: { accept: 'text/event-stream' },
    });
    const requestId = res.headers.get('x-request-id');
    if (!requestId) throw new Error('Did not receive a request ID');
    if (!res.body) throw new Error('The oracle answered without a stream');
    return { requestId, runId: res.headers.get('x-run-id') ?? undefined, body: res.body };
  }

  /**
   * The session's run when one is in flight (`GET /sessions/:id/run`), else undefined. A session with no run
   * yet answers 204; older oracles answer 404 (`run_not_found`, or `session_not_found` "Run not found.").
   */
  async runInFlight(): Promise<RunInfo | undefined> {
    try {
      const answer = await this.#http.call(oracleContract.currentRun, {
        params: { sessionId: this.#sessionId },
      });
      if (answer === null) return undefined; // 204: no run yet
      return IN_FLIGHT.has(answer.run.status) ? answer.run : undefined;
    } catch {
      return undefined; // 404: no run (older oracles); anything else: nothing to pick up
    }
  }

  /** The user's decision on a tool call that waits for approval (`POST /sessions/:id/tool-approvals/:callId`). */
  async decideApproval(toolCallId: string, decision: { approved: boolean; reason?: string }): Promise<void> {
    await this.#http.call(oracleContract.decideToolApproval, {
      params: { sessionId: this.#sessionId, toolCallId },
      body: decision,
    });
  }

  /** Asks the oracle to end the session's turn (`POST /messages/abort`). */
  async abort(): Promise<void> {
    await this.#http.call(oracleContract.abort, { body: { sessionId: this.#sessionId } });
  }

  /**
   * The events of a run, one array per network read: those of `first` (the stream `send` opened, if any),
   * then, each time the stream ends while the caller still reads, those of a re-join after the last event
   * id seen. Re-joins wait by the SDK's backoff; after `attempts` re-joins in a row that fail or bring
   * nothing new, or a 404 (the run is gone), it throws {@link RunDisconnectedError}. The caller stops
   * reading (returns) at `done`; aborting `signal` ends it quietly.
   */
  async *follow(
    runId: string | undefined,
    first: ReadableStream<Uint8Array> | undefined,
    after: number,
    signal: AbortSignal,
    hooks: FollowHooks,
  ): AsyncGenerator<StreamEvent[]> {
    const options = this.#rejoin();
    const attempts = options.attempts ?? 5;
    const backoff = { baseMs: options.baseMs ?? 250, maxMs: options.maxMs ?? 8000, jitter: options.jitter };
    let lastId = after;
    let failures = 0;
    let stream = first;
    for (;;) {
      if (stream) {
        let fresh = false;
        try {
          for await (const batch of readEventStream(stream)) {
            for (const e of batch) {
              if (e.id !== undefined && e.id > lastId) {
                lastId = e.id;
                fresh = true;
              } else if (e.id === undefined) fresh = true;
            }
            yield batch;
          }
        } catch (e) {
          if (signal.aborted) return;
          void e; // a read that fails is a dropped stream: re-join below
        }
        if (signal.aborted) return;
        // A re-join that brought nothing new is a failed attempt; one that did starts the count again.
        failures = fresh ? 0 : failures + (stream === first ? 0 : 1);
        stream = undefined;
      }
      if (!runId || failures >= attempts) {
        hooks.onReconnecting(false);
        throw new RunDisconnectedError();
      }
      hooks.onReconnecting(true);
      if (failures > 0) await sleep(backoffDelay(failures - 1, backoff), signal);
      if (signal.aborted) return;
      try {
        const res = await this.#http.open(oracleContract.rejoinRun, {
          params: { runId },
          query: { after: lastId },
          headers: { accept: 'text/event-stream' },
          signal,
        });
        hooks.onReconnecting(false);
        if (res.body) stream = res.body;
        else failures++;
      } catch (e) {
        if (signal.aborted || isAbortError(e)) return;
        if (e instanceof OracleRequestError && e.status === 404) {
          hooks.onReconnecting(false);
          throw new RunDisconnectedError(e);
        }
        failures++;
      }
    }
  }
}
