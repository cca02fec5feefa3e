/**
 * The state of a running server that its routes read: `/health` answers 503 `draining` from the signal on,
 * through the pre-stop delay (PRESTOP_DELAY_MS) and the drain. Set by server.ts, read by the app it composes.
 */
export interface ServerLifecycle {
  draining: boolean;
}
