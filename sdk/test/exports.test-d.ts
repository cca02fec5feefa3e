// Type tests of the root entry: the spec's types are exported, and the spec's "no such field" holds.
import { describe, expectTypeOf, it } from 'vitest';
import type { AnyEvent, IChatOptions, IMessage, UIComponents, UseChatResult } from '../src/index.js';
import type { MockStep, OracleMockOptions } from '../src/msw.js';

describe('root entry types', () => {
  it('exports IChatOptions, IMessage, AnyEvent and UIComponents with the spec fields', () => {
    expectTypeOf<IChatOptions>().toHaveProperty('oracleDid').toEqualTypeOf<string>();
    expectTypeOf<IChatOptions>()
      .toHaveProperty('onPaymentRequiredError')
      .toEqualTypeOf<(claimIds: string[]) => void>();
    expectTypeOf<IMessage['type']>().toEqualTypeOf<'ai' | 'human'>();
    expectTypeOf<
      Extract<AnyEvent, { eventName: 'browser_tool_call' }>['payload']['toolCallId']
    >().toEqualTypeOf<string>();
    expectTypeOf<UIComponents>().toBeObject();
  });

  it('useChat returns the spec C3 fields, typed as the issue asks', () => {
    // Spec C3's `(message: string) => void`; reference SDK 1.4.0's optional metadata and attachments fit it.
    expectTypeOf<UseChatResult['sendMessage']>().toExtend<(message: string) => void>();
    expectTypeOf<ReturnType<UseChatResult['sendMessage']>>().toEqualTypeOf<void>();
    expectTypeOf<UseChatResult['abortStream']>().toEqualTypeOf<() => Promise<void>>();
    expectTypeOf<UseChatResult['error']>().toEqualTypeOf<Error | undefined>();
    expectTypeOf<UseChatResult['sendMessageError']>().toEqualTypeOf<Error | undefined>();
    expectTypeOf<UseChatResult['status']>().toEqualTypeOf<'submitted' | 'streaming' | 'ready' | 'error'>();
    // @ts-expect-error spec C3: there is no isStreaming field
    type _NoIsStreaming = UseChatResult['isStreaming'];
    // @ts-expect-error spec C3: there is no events field
    type _NoEvents = UseChatResult['events'];
  });
});

describe('the MSW kit is typed from the contracts', () => {
  it('rejects script steps and fixtures that do not match', () => {
    const ok: MockStep[] = [{ type: 'render_component', componentName: 'Card', args: { a: 1 } }];
    expectTypeOf(ok).toBeArray();
    // @ts-expect-error a component's args are an object
    const badArgs: MockStep = { type: 'render_component', componentName: 'Card', args: 'x' };
    // @ts-expect-error no such step
    const badStep: MockStep = { type: 'teleport' };
    // @ts-expect-error history messages are MessageDto: `type` is 'ai' or 'human'
    const badHistory: OracleMockOptions = { history: { s: [{ id: '1', type: 'system', content: 'x' }] } };
    void [badArgs, badStep, badHistory];
  });
});
