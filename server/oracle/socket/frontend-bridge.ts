import type { ControlBus, ControlMessage } from '../runs/control-bus.js';

/** A call of a browser tool or an agent-UI action, to be run in the user's browser over the socket. */
export interface FrontendCall {
  kind: 'browser_tool' | 'action';
  sessionId: string;
  /** The session's owner: only a socket of this user may answer. */
  userDid: string;
  requestId: string;
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  timeoutMs: number;
  signal: AbortSignal;
}

/** What came back: a result, or an error (the browser's, a timeout, an abort). */
export type FrontendOutcome = { ok: true; result: unknown } | { ok: false; error: string };

type FrontendResult = Extract<ControlMessage, { type: 'frontend_result' }>;

/** Sends the call to the session's sockets (on any instance). */
export type FrontendEmitter = (call: FrontendCall) => void;

/**
 * Runs browser tools and actions: emits the call to the session's room and waits for the matching result, by a
 * `toolCallId` unique across requests and instances. A result for a call that waits on another instance travels
 * on the control bus, so a socket connected to any instance can answer; a result from anyone but the session's
 * owner, for another session, or for an unknown id is ignored.
 */
export function createFrontendBridge(bus: ControlBus, emit: FrontendEmitter) {
  const pending = new Map<string, { call: FrontendCall; settle: (outcome: FrontendOutcome) => void }>();
  /** Settles the call waiting here for this result, if any (true: it waits here, answered or not). */
  const deliver = (message: FrontendResult): boolean => {
    const waiting = pending.get(message.toolCallId);
    if (!waiting) return false;
    if (waiting.call.userDid !== message.userDid || waiting.call.sessionId !== message.sessionId) return true;
    waiting.settle(
      message.error === undefined
        ? { ok: true, result: message.result }
        : { ok: false, error: message.error },
    );
    return true;
  };
  const unsubscribe = bus.subscribe((message: ControlMessage) => {
    if (message.type === 'frontend_result') deliver(message);
  });

  return {
    call(call: FrontendCall): Promise<FrontendOutcome> {
      return new Promise((resolve) => {
        const timer = setTimeout(
          () =>
            settle({
              ok: false,
              error: `No result from the browser within ${call.timeoutMs} ms (timed out).`,
            }),
          call.timeoutMs,
        );
        const onAbort = (): void => settle({ ok: false, error: 'The turn was aborted.' });
        function settle(outcome: FrontendOutcome): void {
          if (!pending.delete(call.toolCallId)) return;
          clearTimeout(timer);
          call.signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        }
        pending.set(call.toolCallId, { call, settle });
        call.signal.addEventListener('abort', onAbort, { once: true });
        if (call.signal.aborted) {
          onAbort();
          return;
        }
        emit(call);
      });
    },
    /**
     * A result a socket sent (the socket layer checked who sent it): to the call when it waits here, else
     * published for the instance where it waits (ids are unique: it waits in one place at most).
     */
    async answer(message: FrontendResult): Promise<void> {
      if (!deliver(message)) await bus.publish(message);
    },
    close(): void {
      unsubscribe();
      for (const { settle } of [...pending.values()])
        settle({ ok: false, error: 'The service is shutting down.' });
    },
  };
}

export type FrontendBridge = ReturnType<typeof createFrontendBridge>;
