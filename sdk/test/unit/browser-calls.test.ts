// BrowserCalls alone: each call runs once per id, its result (or error) goes back on the socket with the exact
// payload the oracle reads, and the tool is found by its key or by its toolName.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BrowserCalls } from '../../src/chat/browser-calls.js';
import { ActionRegistry } from '../../src/context/action-registry.js';
import type { BrowserTool } from '../../src/types.js';

const ref = { sessionId: 'ses_1', requestId: 'req_1' };

function calls(tools: Record<string, BrowserTool> = {}, actions = new ActionRegistry()) {
  const sent: [string, unknown][] = [];
  const c = new BrowserCalls({
    sessionId: 'ses_1',
    tools: () => tools,
    actions,
    emit: (name, payload) => void sent.push([name, payload]),
  });
  return { c, sent };
}

const colourTool: BrowserTool = {
  toolName: 'pick_colour',
  description: 'Picks a colour',
  schema: z.object({ hue: z.number() }),
  fn: ({ hue }: { hue: number }) => ({ colour: hue > 180 ? 'blue' : 'red' }),
};

describe('BrowserCalls.runBrowserTool', () => {
  it('runs the tool with its parsed arguments and sends tool_result with the result; once per call id', async () => {
    const { c, sent } = calls({ pick: colourTool });
    expect(c.has('t1')).toBe(false);
    const outcome = await c.runBrowserTool({
      ...ref,
      toolCallId: 't1',
      toolName: 'pick_colour',
      args: { hue: 200 },
    });
    expect(outcome).toEqual({ result: { colour: 'blue' }, args: { hue: 200 } });
    expect(sent).toEqual([['tool_result', { toolCallId: 't1', result: { colour: 'blue' } }]]);
    expect(c.has('t1')).toBe(true);
    // The same call again (a replayed event): not run, nothing sent.
    expect(
      await c.runBrowserTool({ ...ref, toolCallId: 't1', toolName: 'pick_colour', args: { hue: 1 } }),
    ).toBe(undefined);
    expect(sent).toHaveLength(1);
  });

  it('finds a tool by its key as well as by its toolName', async () => {
    const { c, sent } = calls({ pick: colourTool });
    await c.runBrowserTool({ ...ref, toolCallId: 't2', toolName: 'pick', args: { hue: 1 } });
    expect(sent).toEqual([['tool_result', { toolCallId: 't2', result: { colour: 'red' } }]]);
  });

  it('an unknown tool, invalid arguments or a throwing tool: an error result with its text', async () => {
    const throwing: BrowserTool = {
      toolName: 'boom',
      description: 'fails',
      schema: z.object({}),
      fn: () => {
        throw new Error('No clipboard here');
      },
    };
    const { c, sent } = calls({ pick: colourTool, boom: throwing });
    await c.runBrowserTool({ ...ref, toolCallId: 'a', toolName: 'nope', args: {} });
    await c.runBrowserTool({ ...ref, toolCallId: 'b', toolName: 'pick_colour', args: { hue: 'x' } });
    await c.runBrowserTool({ ...ref, toolCallId: 'c', toolName: 'boom', args: {} });
    expect(sent).toEqual([
      ['tool_result', { toolCallId: 'a', result: null, error: 'Unknown browser tool "nope"' }],
      [
        'tool_result',
        {
          toolCallId: 'b',
          result: null,
          error: 'Invalid arguments for browser tool "pick_colour": hue: Expected number, received string',
        },
      ],
      ['tool_result', { toolCallId: 'c', result: null, error: 'No clipboard here' }],
    ]);
  });

  it('reads the tools at call time (a hook that joined later is seen)', async () => {
    const tools: Record<string, BrowserTool> = {};
    const { c, sent } = calls(tools);
    tools['pick'] = colourTool;
    await c.runBrowserTool({ ...ref, toolCallId: 't3', toolName: 'pick_colour', args: { hue: 0 } });
    expect(sent[0]).toEqual(['tool_result', { toolCallId: 't3', result: { colour: 'red' } }]);
  });
});

describe('BrowserCalls.runAction', () => {
  const registry = (handler: (args: unknown) => unknown) => {
    const actions = new ActionRegistry();
    actions.register('highlight', () => ({
      name: 'highlight',
      description: 'Highlights a row',
      parameters: z.object({ row: z.number() }),
      hasRender: false,
      handler,
      render: undefined,
    }));
    return actions;
  };

  it('runs the handler and sends action_call_result with the session and the result; once per call id', async () => {
    const seen: unknown[] = [];
    const { c, sent } = calls(
      {},
      registry((args) => {
        seen.push(args);
        return 'highlighted';
      }),
    );
    const call = {
      ...ref,
      toolCallId: 'x1',
      toolName: 'highlight',
      args: { row: 3 },
      status: 'isRunning' as const,
    };
    expect(await c.runAction(call)).toEqual({ result: 'highlighted', args: { row: 3 } });
    expect(await c.runAction(call)).toBeUndefined();
    expect(seen).toEqual([{ row: 3 }]);
    expect(sent).toEqual([
      ['action_call_result', { toolCallId: 'x1', sessionId: 'ses_1', result: 'highlighted' }],
    ]);
  });

  it('a failure sends {success: false, error} as the result and the error beside it; no args is {}', async () => {
    const { c, sent } = calls(
      {},
      registry(() => {
        throw new Error('Row 3 is gone');
      }),
    );
    await c.runAction({
      ...ref,
      toolCallId: 'x2',
      toolName: 'highlight',
      args: { row: 3 },
      status: 'isRunning',
    });
    await c.runAction({ ...ref, toolCallId: 'x3', toolName: 'highlight', status: 'isRunning' });
    await c.runAction({ ...ref, toolCallId: 'x4', toolName: 'missing', status: 'isRunning' });
    const invalid = 'Invalid arguments for action "highlight": row: Required';
    expect(sent).toEqual([
      [
        'action_call_result',
        {
          toolCallId: 'x2',
          sessionId: 'ses_1',
          result: { success: false, error: 'Row 3 is gone' },
          error: 'Row 3 is gone',
        },
      ],
      [
        'action_call_result',
        { toolCallId: 'x3', sessionId: 'ses_1', result: { success: false, error: invalid }, error: invalid },
      ],
      [
        'action_call_result',
        {
          toolCallId: 'x4',
          sessionId: 'ses_1',
          result: { success: false, error: 'Unknown action "missing"' },
          error: 'Unknown action "missing"',
        },
      ],
    ]);
  });

  it('a browser tool and an action share the once-per-id rule', async () => {
    const { c, sent } = calls(
      { pick: colourTool },
      registry(() => 'ok'),
    );
    await c.runBrowserTool({ ...ref, toolCallId: 'same', toolName: 'pick_colour', args: { hue: 0 } });
    expect(
      await c.runAction({
        ...ref,
        toolCallId: 'same',
        toolName: 'highlight',
        args: { row: 1 },
        status: 'isRunning',
      }),
    ).toBeUndefined();
    expect(sent.map(([name]) => name)).toEqual(['tool_result']);
  });
});
