import { io as connect, type Socket } from 'socket.io-client';
import type { OracleUser } from './oracle-client.js';

/** A browser tab's socket: connected to a session as its user, recording what it receives. */
export interface TestSocket {
  socket: Socket;
  received: { event: string; payload: Record<string, unknown> }[];
  close(): void;
}

/** Connects like the SDK: `auth: {invocation, ucanDelegation}`, `query: {sessionId, userDid}`, websocket only. */
export function connectSocket(url: string, user: OracleUser, sessionId: string): Promise<TestSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect(url, {
      transports: ['websocket'],
      auth: { invocation: user.invocation.serialized, ucanDelegation: user.delegation.serialized },
      query: { sessionId, userDid: user.did },
      reconnection: false,
    });
    const received: TestSocket['received'] = [];
    socket.onAny((event: string, payload: Record<string, unknown>) => received.push({ event, payload }));
    socket.once('connected', () => resolve({ socket, received, close: () => socket.close() }));
    socket.once('connect_error', reject);
  });
}
