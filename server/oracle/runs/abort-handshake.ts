/**
 * The abort handshake (spec: the published SDK awaits the answer to `POST /messages/abort` before it drops its
 * own stream, so the answer must go out before the stream's `done`):
 *
 * 1. The route hands the manager a promise of its answer being sent ({@link whenAnswered}).
 * 2. The manager stops the run with an {@link AbortGate} on it, and waits for the gate's `stored`: the partial
 *    answer is in history.
 * 3. The route answers `{success: true}`; the gate opens (at the latest {@link MAX_HOLD_MS} later: a client that
 *    never reads its answer must not freeze the stream), and the run's `done` goes out.
 *
 * The SDK's side: `ChatController.abortStream` awaits the answer, then waits for `done` (at most 1.5 s).
 */
export interface AbortGate {
  /** Resolves when `done` may be written. */
  open: Promise<void>;
  /** Called by the run once its partial answer is stored. */
  stored: () => void;
  /** Resolves once `stored` was called. */
  storedYet: Promise<void>;
}

/** Longest the `done` of an aborted run is held back for the abort's answer. */
const MAX_HOLD_MS = 5000;

/** A gate that opens when `answered` resolves, or after {@link MAX_HOLD_MS}. */
export function createAbortGate(answered: Promise<void>, maxHoldMs = MAX_HOLD_MS): AbortGate {
  let stored!: () => void;
  const storedYet = new Promise<void>((resolve) => (stored = resolve));
  const open = Promise.race([answered, new Promise<void>((r) => setTimeout(r, maxHoldMs).unref())]);
  return { open, stored, storedYet };
}

/** Resolves once the response is sent (or its connection closed first). */
export function whenAnswered(res: {
  once(event: 'finish' | 'close', listener: () => void): unknown;
}): Promise<void> {
  return new Promise<void>((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
}
