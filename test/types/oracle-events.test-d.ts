import { expectTypeOf, test } from 'vitest';
import type { z } from 'zod';
import type { AnyEventSchema, SOCKET_SERVER_EVENT_NAMES, SSE_EVENT_NAMES } from '../../contracts/events.js';
import { type AnyEvent, type ServerEventName } from '../../contracts/events.js';

test('the AnyEvent zod schema infers exactly the AnyEvent union', () => {
  expectTypeOf<z.infer<typeof AnyEventSchema>>().toEqualTypeOf<AnyEvent>();
});

test('every SSE and socket event name has a schema', () => {
  expectTypeOf<(typeof SSE_EVENT_NAMES)[number]>().toMatchTypeOf<ServerEventName>();
  expectTypeOf<(typeof SOCKET_SERVER_EVENT_NAMES)[number]>().toMatchTypeOf<ServerEventName>();
});

test('a payload of the wrong shape for its event name does not type-check', () => {
  const payload = { sessionId: 's', requestId: 'r', eventId: 'e', toolName: 'x', args: {} };
  // @ts-expect-error render_component needs componentName, not toolName
  const bad: AnyEvent = { eventName: 'render_component', payload };
  void bad;
});
