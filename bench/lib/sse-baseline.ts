// The baseline of `npm run bench:oracle`: a bare Express 4 server with socket.io that answers the oracle's
// routes by replaying frames recorded from a real turn of the oracle, byte for byte, one write per frame, with
// the same streaming headers. No auth, no database, no run: what is left is the cost of streaming itself.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Server } from 'socket.io';

/** An event a tab received on its socket, its payload as JSON. */
export interface SocketEvent {
  event: string;
  payload: string;
}

/** Turns recorded from the oracle, as the baseline replays them. Frames are raw, blank line included. */
export interface TurnRecording {
  /** A chat turn without tools: `run`, the answer's `message` deltas, `done`. */
  chat: string[];
  /** A browser-tool turn, cut where the turn waits for the tab's result. */
  tool: {
    /** Frames up to and including `browser_tool_call`. */
    before: string[];
    /** Frames after the result came back, to `done`. */
    after: string[];
    /** The call id in the recorded frames; each replay puts a fresh id of the same length in its place. */
    toolCallId: string;
    /** Socket events the tab received up to and including `browser_tool_call` (`tool_call` runs first). */
    socketBefore: SocketEvent[];
    /** Socket events the tab received after it answered. */
    socketAfter: SocketEvent[];
  };
}

/**
 * Starts the baseline on a loopback port and resolves its URL. `POST /messages/:sessionId` replays the chat
 * turn, or, when the body has `tools`, the tool turn: its first frames and socket events (`browser_tool_call`
 * last) to the session's sockets (a socket.io room named by the handshake's `query.sessionId`), then the
 * remaining ones once a socket answers `tool_result` with that call's id.
 */
export function startBaseline(recording: TurnRecording, paceMs = 0): Promise<string> {
  const app = express();
  app.disable('x-powered-by');
  const http = createServer(app);
  const io = new Server(http, { serveClient: false, maxHttpBufferSize: 2 * 1024 * 1024 });
  const waiting = new Map<string, () => void>();

  io.on('connection', (socket) => {
    const sessionId = String(socket.handshake.query['sessionId']);
    void socket.join(sessionId);
    socket.emit('connected', { message: 'Connected', sessionId, timestamp: new Date().toISOString() });
    socket.on('tool_result', (payload: { toolCallId?: unknown } | undefined) => {
      const id = typeof payload?.toolCallId === 'string' ? payload.toolCallId : '';
      const resume = waiting.get(id);
      waiting.delete(id);
      resume?.();
    });
  });

  app.post('/messages/:sessionId', express.json({ limit: '2mb' }), (req, res) => {
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache, no-transform');
    res.setHeader('connection', 'keep-alive');
    res.setHeader('x-accel-buffering', 'no');
    res.setHeader('x-request-id', randomUUID());
    res.setHeader('x-run-id', `run_${randomUUID()}`);
    res.flushHeaders();
    if (!(req.body as { tools?: unknown[] }).tools?.length) {
      if (paceMs <= 0) {
        for (const frame of recording.chat) res.write(frame);
        res.end();
        return;
      }
      // Paced like the scripted model: a pause after each word of the answer.
      const frames = recording.chat;
      let i = 0;
      const next = (): void => {
        while (i < frames.length) {
          const frame = frames[i++] as string;
          res.write(frame);
          if (frame.startsWith('event: message') && i < frames.length) {
            setTimeout(next, paceMs);
            return;
          }
        }
        res.end();
      };
      next();
      return;
    }
    const { before, after, toolCallId, socketBefore, socketAfter } = recording.tool;
    const id = `call_${randomUUID()}`;
    const room = io.to(req.params['sessionId'] ?? '');
    const replay = (frames: string[], events: SocketEvent[]): void => {
      for (const frame of frames) res.write(frame.replaceAll(toolCallId, id));
      for (const { event, payload } of events)
        room.emit(event, JSON.parse(payload.replaceAll(toolCallId, id)));
    };
    waiting.set(id, () => {
      replay(after, socketAfter);
      res.end();
    });
    res.once('close', () => waiting.delete(id));
    replay(before, socketBefore);
  });

  return new Promise((resolve) => {
    http.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(http.address() as AddressInfo).port}`));
  });
}
