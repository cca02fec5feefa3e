import { useEffect, useRef } from 'react';
import type { z } from 'zod';
import { useOraclesContext } from '../context/oracles-context.js';
import type { AgActionRender } from '../types.js';

/** An agent-UI action (spec C4). */
export interface AgActionConfig<S extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  description: string;
  /** Argument schema; advertised to the agent as JSON schema, and used to parse the arguments of a call. */
  parameters: S;
  /** Runs the action with the parsed arguments; its result goes back to the agent. */
  handler: (args: z.infer<S>) => unknown;
  /** Inline rendering in the chat; `status` is `done` once the call has completed. */
  render?: AgActionRender<z.infer<S>>;
}

/**
 * Registers an agent-UI action with the provider for as long as the component is mounted. `useChat`
 * advertises it with every message, runs `handler` when the agent calls it (arguments parsed by
 * `parameters`; invalid arguments or a throwing handler send an error result back, never a throw), and
 * renders `render` inline in the message. The latest `handler` and `render` are always used.
 *
 * @example
 * useAgAction({
 *   name: 'highlight_card',
 *   description: 'Highlights a card on the page',
 *   parameters: z.object({ cardId: z.string() }),
 *   handler: async ({ cardId }) => { highlight(cardId); return { ok: true }; },
 *   render: ({ status, args }) => <span>{status === 'done' ? `Highlighted ${args.cardId}` : '…'}</span>,
 * });
 */
export function useAgAction<S extends z.ZodTypeAny>(config: AgActionConfig<S>): void {
  const { actions } = useOraclesContext();
  const latest = useRef(config);
  latest.current = config;
  useEffect(
    () =>
      actions.register(config.name, () => {
        const c = latest.current;
        return {
          name: c.name,
          description: c.description,
          parameters: c.parameters,
          hasRender: c.render !== undefined,
          handler: (args: unknown) => c.handler(args),
          render: c.render,
        };
      }),
    [actions, config.name],
  );
}
