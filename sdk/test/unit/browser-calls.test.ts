// BrowserCalls alone: each call runs once per id, its result (or error) goes back on the socket with the exact
// payload the oracle reads, and the tool is found by its key or by its toolName.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BrowserCalls } from '../../src/chat/browser-calls.js';
import { ActionRegistry } from '../../src/tools/action-registry.js';
import type { BrowserTool } from '../../src/types.js';

const ref = { sessionId: 'ses_1', requestId: 'req_1' };

function calls(
  tools: Record<string, BrowserTool> = {},
  actions = new ActionRegistry(),
  answer: { approved: boolean; reason?: string } = { approved: true },
) {
  const sent: [string, unknown][] = [];
  const asked: string[] = [];
  const c = new BrowserCalls({
    sessionId: 'ses_1',
    tools: () => tools,
    actions,
    emit: (name, payload) => void sent.push([name, payload]),
    ask: (call) => {
      asked.push(call.toolCallId);
      return Promise.resolve(answer);
    },
  });
  return { c, sent, asked };
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

describe('browser tools with needsApproval', () => {
  const tool = (needsApproval: BrowserTool['needsApproval'], ran: string[]): BrowserTool => ({
    toolName: 'pay',
    description: 'pays',
    schema: z.object({ amount: z.number() }),
    fn: ({ amount }: { amount: number }) => {
      ran.push(String(amount));
      return 'paid';
    },
    needsApproval,
  });
  const call = (amount: number) => ({
    ...ref,
    toolCallId: `call_${amount}`,
    toolName: 'pay',
    args: { amount },
  });

  it.each([
    ['true, approved', true, { approved: true }, ['call_5'], ['5'], { result: 'paid' }],
    [
      'true, denied with a reason',
      true,
      { approved: false, reason: 'too much' },
      ['call_5'],
      [],
      { result: null, error: 'The user declined to run pay (reason: too much).' },
    ],
    [
      'a rule that says no approval is needed',
      (a: { amount: number }) => a.amount > 10,
      { approved: false },
      [],
      ['5'],
      { result: 'paid' },
    ],
    ['false', false, { approved: false }, [], ['5'], { result: 'paid' }],
  ] as const)('%s', async (_name, needs, answer, asked, ran, sentResult) => {
    const runs: string[] = [];
    const {
      c,
      sent,
      asked: seen,
    } = calls({ pay: tool(needs as BrowserTool['needsApproval'], runs) }, undefined, answer);
    await c.runBrowserTool(call(5));
    expect(seen).toEqual(asked);
    expect(runs).toEqual(ran);
    expect(sent).toEqual([['tool_result', { toolCallId: 'call_5', ...sentResult }]]);
  });
});
