import { isTimeZone } from '../../../contracts/oracle.js';
import { fence, FENCE_RULE } from '../models/prompt-fence.js';

/** A section of the system prompt, contributed by the runtime or a plugin. */
export interface PromptSection {
  /** A heading (`## <title>`); the section is left out when its body is empty. */
  title: string;
  /** What the section says. Any text a user wrote goes in through `fence()` (prompt-fence.ts), never raw. */
  body: string;
}

/**
 * Compiles the system prompt: who the agent is, then each non-empty section under its heading. The agent's
 * name comes first so that every model (the scripted one reads it too) knows what to call itself: the
 * operator's name as it is, or the name a user chose, fenced. The head says once what the fence means. A time
 * zone that is not an IANA zone name (one stored before the contract checked it) is left out.
 */
export function compileSystemPrompt(options: {
  /** The oracle's own name (the operator's configuration). */
  agentName: string;
  /** The name the user chose for the agent (their preferences), which replaces `agentName`: fenced. */
  userAgentName?: string | undefined;
  now: Date;
  timezone: string | undefined;
  sections: PromptSection[];
}): string {
  const when =
    options.timezone !== undefined && isTimeZone(options.timezone)
      ? `${options.now.toISOString()} (the user's time zone is ${options.timezone})`
      : options.now.toISOString();
  const name = options.userAgentName === undefined ? options.agentName : fence(options.userAgentName);
  const head = [
    `You are ${name}, an AI agent (an oracle) that helps its user.`,
    `The current time is ${when}.`,
    'Answer in plain, helpful language. Use the tools you are given when they help; never invent their results.',
    FENCE_RULE,
  ].join('\n');
  const body = options.sections
    .filter((s) => s.body.trim() !== '')
    .map((s) => `## ${s.title}\n${s.body.trim()}`);
  return [head, ...body].join('\n\n');
}
