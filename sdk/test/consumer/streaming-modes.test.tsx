import { useChat, type MessageContent, type StreamingMode } from '@open-oracles/oracles-client-sdk';
import { act, render, screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { mockOracle, providerFor, server, session, withMockServer } from './harness.js';

withMockServer();

const textOf = (c: MessageContent | undefined): string =>
  c === undefined
    ? ''
    : typeof c === 'string'
      ? c
      : (Array.isArray(c) ? c : [c]).filter((p) => typeof p === 'string').join('');

/**
 * A stream whose every event arrives in its own network read (a macrotask apart), so the render counts
 * below compare "per read" with "per frame".
 */
function slowStream(apiUrl: string, tokens: number) {
  const enc = new TextEncoder();
  server.use(
    http.post(`${apiUrl}/messages/ses_1`, () => {
      const frames = [
        `id: 1\nevent: run\ndata: {"runId":"run_1","requestId":"req_1"}\n\n`,
        ...Array.from(
          { length: tokens },
          (_, i) =>
            `id: ${i + 2}\nevent: message\ndata: {"content":"t${i} ","timestamp":"2026-11-23T00:00:00.000Z"}\n\n`,
        ),
        `id: ${tokens + 2}\nevent: done\ndata: {"status":"finished"}\n\n`,
      ];
      const body = new ReadableStream<Uint8Array>({
        async start(c) {
          for (const f of frames) {
            c.enqueue(enc.encode(f));
            await new Promise((r) => setTimeout(r, 1));
          }
          c.close();
        },
      });
      return new Response(body, {
        headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_1', 'x-run-id': 'run_1' },
      });
    }),
  );
}

async function rendersWhileStreaming(mode: StreamingMode, tokens: number) {
  const oracle = mockOracle({ sessions: [session()] });
  slowStream(oracle.control.apiUrl, tokens);
  let renders = 0;
  let streamingRenders = 0;
  // Renders for new text only: a status or run change is published at once (with the pending text), by design.
  let textRenders = 0;
  let last: { messages: unknown; run: unknown; status: string } | undefined;
  let frames = 0;
  let counting = true;
  const tick = () => {
    frames++;
    if (counting) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  function Chat() {
    const chat = useChat({
      oracleDid: oracle.control.oracleDid,
      sessionId: 'ses_1',
      onPaymentRequiredError: vi.fn(),
      streamingMode: mode,
    });
    renders++;
    if (chat.status === 'streaming') {
      streamingRenders++;
      const metaChanged = chat.run !== last?.run || chat.status !== last.status;
      if (chat.messages !== last?.messages && !metaChanged) textRenders++;
    }
    last = { messages: chat.messages, run: chat.run, status: chat.status };
    return (
      <div>
        <span data-testid="status">{chat.status}</span>
        <button onClick={() => chat.sendMessage('go')}>send</button>
        <p data-testid="last">{textOf(chat.messages.at(-1)?.content)}</p>
      </div>
    );
  }
  render(<Chat />, { wrapper: providerFor(oracle) });
  await waitFor(() => expect(screen.getByText('send')).toBeTruthy());
  await act(() => new Promise((r) => setTimeout(r, 20)));
  const before = renders;
  const framesBefore = frames;
  act(() => screen.getByText('send').click());
  await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'), { timeout: 5000 });
  counting = false;
  expect(screen.getByTestId('last').textContent).toBe(
    Array.from({ length: tokens }, (_, i) => `t${i} `).join(''),
  );
  return { renders: renders - before, streamingRenders, textRenders, frames: frames - framesBefore };
}

describe('streamingMode', () => {
  it("'batched' renders at most once per animation frame while tokens stream", async () => {
    const { streamingRenders, textRenders, frames } = await rendersWhileStreaming('batched', 60);
    // At most one text render per frame (the last frame may publish after the count stops: + 1). Status and run
    // changes publish at once, by design: counting them against frames failed under CI's load (three streaming
    // renders, no frame fired).
    expect(textRenders).toBeLessThanOrEqual(frames + 1);
    expect(streamingRenders).toBeLessThan(60);
  });

  it("'immediate' renders once per network read", async () => {
    const { streamingRenders } = await rendersWhileStreaming('immediate', 60);
    expect(streamingRenders).toBeGreaterThanOrEqual(60);
  });
});
