import type { z } from 'zod';

/** What a browser tool or action call came to: a result, or an error text for the agent. */
export interface CallOutcome {
  result: unknown;
  error?: string;
  /** The arguments as parsed, when they were valid. */
  args?: Record<string, unknown>;
  /** The user declined the call (it needed approval): it did not run; `error` says so. */
  denied?: boolean;
}

/**
 * Runs a browser tool's `fn` or an action's `handler` with arguments parsed by its zod schema. Unknown
 * names, invalid arguments and throwing functions come back as an error result, never as a throw (this
 * runs on socket events, outside React's reach).
 */
export async function runCall(
  target: { schema: z.ZodTypeAny; fn: (args: never) => unknown } | undefined,
  name: string,
  rawArgs: unknown,
  what: 'browser tool' | 'action',
): Promise<CallOutcome> {
  if (!target) return { result: null, error: `Unknown ${what} "${name}"` };
  const parsed = target.schema.safeParse(rawArgs);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { result: null, error: `Invalid arguments for ${what} "${name}": ${issues}` };
  }
  const args = parsed.data as Record<string, unknown>;
  try {
    const result: unknown = await (target.fn as (a: unknown) => unknown)(parsed.data);
    return { result: result === undefined ? null : result, args };
  } catch (e) {
    return { result: null, error: e instanceof Error ? e.message : String(e), args };
  }
}
