// The turn loop's guard against a model that never stops calling tools: at most MAX_STEPS model calls a turn,
// each tool call run and answered, then the turn ends with what it has (finished, with a warning in the log),
// never an endless loop. Driven with runTurn directly and a model that always asks for the tool again.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ModelRequest } from '../../../server/oracle/models/model.js';
import type { FrontendBridge } from '../../../server/oracle/socket/frontend-bridge.js';
import { MAX_STEPS, runTurn } from '../../../server/oracle/runtime/turn-loop.js';
import type { Logger } from '../../../server/logger.js';

describe('runTurn: the most model calls a turn may make', () => {
  it('a model that calls a tool at every step is stopped after MAX_STEPS calls; each call ran and was answered', async () => {
    const requests: ModelRequest[] = [];
    const model = {
      id: 'looping',
      async *stream(request: ModelRequest) {
        requests.push({ ...request, messages: [...request.messages] });
        await Promise.resolve();
        yield { type: 'text' as const, text: `step ${requests.length}. ` };
        yield {
          type: 'tool-call' as const,
          call: { id: 'ignored', name: 'count', args: { n: requests.length } },
        };
      },
    };
    let handled = 0;
    const warnings: [unknown, string][] = [];
    const logger = {
      warn: (fields: unknown, message: string) => void warnings.push([fields, message]),
      error: () => undefined,
      info: () => undefined,
      debug: () => undefined,
    } as unknown as Logger;
    const events: string[] = [];
    const outcome = await runTurn(
      {
        sessionId: 'ses_1',
        userDid: 'did:key:user',
        runId: 'run_1',
        requestId: 'req_1',
        roomId: 'room_1',
        sharedRoomId: undefined,
        request: { message: 'count forever' },
        history: [],
        systemPrompt: 'You count.',
        state: {},
      },
      {
        model,
        serverTools: [
          {
            name: 'count',
            description: 'Counts',
            parameters: z.object({ n: z.number() }),
            handler: ({ n }: { n: number }) => {
              handled++;
              return Promise.resolve({ counted: n });
            },
          },
        ],
        bridge: {} as FrontendBridge,
        toolTimeoutMs: 1_000,
        logger,
        emit: (name) => void events.push(name),
        signal: new AbortController().signal,
      },
    );
    expect(MAX_STEPS).toBe(8);
    expect(requests).toHaveLength(MAX_STEPS);
    expect(handled).toBe(MAX_STEPS);
    expect(outcome.status).toBe('finished');
    expect(outcome.text).toBe(Array.from({ length: MAX_STEPS }, (_, i) => `step ${i + 1}. `).join(''));
    expect(outcome.toolCalls.map((c) => [c.name, c.status, c.output])).toEqual(
      Array.from({ length: MAX_STEPS }, (_, i) => ['count', 'done', JSON.stringify({ counted: i + 1 })]),
    );
    // Each step's model call saw every earlier step's call and its result.
    expect(requests[MAX_STEPS - 1]?.messages.filter((m) => m.role === 'tool')).toHaveLength(MAX_STEPS - 1);
    expect(events.filter((e) => e === 'tool_call')).toHaveLength(2 * MAX_STEPS);
    expect(warnings).toEqual([
      [{ runId: 'run_1' }, 'turn stopped after the most model calls a turn may make'],
    ]);
  });
});
