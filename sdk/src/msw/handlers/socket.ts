import { ws, type WebSocketHandler } from 'msw';
import { ActionCallResultEvent, ToolResultEvent } from '../../../../contracts/events.js';
import { now, type MockState } from '../mock-state.js';
import { SocketIoMockClient } from '../socket-io-mock.js';

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const wsOrigin = (url: string): string => url.replace(/^http/, 'ws').replace(/\/+$/, '');

/** The socket.io channel: handshakes (accepted or refused), `connected`, and the browser's results. */
export function socketHandler(state: MockState): WebSocketHandler {
  // socket.io's default path `/socket.io/`; msw 2.x matches it with that path segment removed, so both forms.
  const socketLink = ws.link(new RegExp(`^${escapeRegExp(wsOrigin(state.wsUrl))}/(socket\\.io/)?$`));
  return socketLink.addEventListener('connection', ({ client }) => {
    const socket = new SocketIoMockClient(client, {
      onConnect: (s) => {
        const query = Object.fromEntries(s.query.entries());
        const refusal =
          state.options.socketAuth?.({ query: s.query, auth: s.auth }) ??
          (typeof s.auth?.['ucanDelegation'] !== 'string' || s.auth['ucanDelegation'] === ''
            ? 'auth_missing'
            : !s.query.get('sessionId') || !s.query.get('userDid')
              ? 'bad_request'
              : undefined);
        state.handshakes.push({ query, auth: s.auth, accepted: refusal === undefined });
        if (refusal === undefined) {
          state.sockets.add(s);
          queueMicrotask(() => {
            s.emit('connected', {
              message: 'connected',
              sessionId: s.query.get('sessionId') ?? '',
              timestamp: now(),
            });
            // After `connected`: a scripted browser tool call waiting for this socket goes out behind it.
            for (const listener of [...state.socketListeners]) listener();
          });
        }
        return refusal;
      },
      onEvent: (_s, name, payload) => {
        if (name === 'tool_result') {
          const p = ToolResultEvent.safeParse(payload);
          if (!p.success) return;
          state.toolResults.push(p.data);
          state.waiters.get(p.data.toolCallId)?.({
            result: p.data.result,
            ...(p.data.error !== undefined ? { error: p.data.error } : {}),
          });
        } else if (name === 'action_call_result') {
          const p = ActionCallResultEvent.safeParse(payload);
          if (!p.success) return;
          state.actionResults.push(p.data);
          state.waiters.get(p.data.toolCallId)?.({
            result: p.data.result,
            ...(p.data.error !== undefined ? { error: p.data.error } : {}),
          });
        }
      },
      onClose: (s) => state.sockets.delete(s),
    });
    void socket;
  });
}
